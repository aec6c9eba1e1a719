package condpor

// debugf, when set by a test, is told what the engine explores.
var debugf func(string, ...any)
