package main

import "fmt"

func init() {
	register(command{
		Name:     "version",
		Synopsis: "Show the rdmaform version",
		Run: func(args []string, s streams) int {
			fmt.Fprintf(s.Out, "rdmaform v%s\n", Version)
			return 0
		},
	})
}
