package version

// Fill is fill, for the external tests.
var Fill = fill
