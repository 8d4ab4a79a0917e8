{
// City and country e.g. Bogotá, Colombia
location: string,
// Units the temperature will be returned in.
units: string | null,
// Forecast length; null for today only.
days: number | null,
}
