package config

import "strings"

type stringsBuilder = strings.Builder
