// Get the weather.
{
location: any,
unit?: any, // default: "celsius"
// Days
//
// Number of days
days?: any, // default: null
}
