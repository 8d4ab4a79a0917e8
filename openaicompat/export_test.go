package openaicompat

// RaceEnabled is raceEnabled, for the tests of package openaicompat_test.
const RaceEnabled = raceEnabled
