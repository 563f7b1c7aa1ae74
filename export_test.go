package omoide

// EvidenceOf is evidenceOf, for the tests of package omoide_test (a program
// gets a retrieval's evidence rendered, by Memory.Evidence or EvidenceWith).
var EvidenceOf = evidenceOf
