// Get the weather.
{
// Location
//
location: {
    // City
    //
    // City name
    city: string,
    // Country
    //
    country?: string | null, // default: null
    },
// Unit
//
unit?: "celsius" | "fahrenheit", // default: celsius
// Days
//
// Number of days
days?: number | null, // default: null
}
