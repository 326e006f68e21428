package config

// ruleCase is one validation rule's test: a configuration and the
// diagnostic it must produce (summary, detail substring, subject start).
type ruleCase struct {
	name    string
	src     string
	summary string
	detail  string
	line    int
	col     int
}

var ruleCases = []ruleCase{}
