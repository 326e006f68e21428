package views

import "strings"

// WantsJSON reports whether a command's arguments ask for -json, read
// before its flags are parsed, as Terraform's arguments.ParseView does: a
// command whose flags fail to parse reports that in the form asked for.
// Flags end at "--" or the first argument that is not one. With -help
// it is false: help is text, as Terraform's.
func WantsJSON(args []string) bool {
	json := false
	for _, a := range args {
		if a == "--" || !strings.HasPrefix(a, "-") {
			break
		}
		switch strings.TrimLeft(a, "-") {
		case "help", "h":
			return false
		case "json", "json=true", "json=1", "json=t", "json=T", "json=TRUE", "json=True":
			json = true
		case "json=false", "json=0", "json=f", "json=F", "json=FALSE", "json=False":
			json = false
		}
	}
	return json
}
