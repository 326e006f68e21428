package client

import (
	"encoding/hex"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// PrivateDataText is private data as status and the monitor show it: the
// text, double-quoted as Go quotes strings (a newline as \n), when it is
// valid UTF-8 made of printable characters, spaces, tabs and line ends
// (other control characters not);
// otherwise "hex " and the bytes in lowercase hexadecimal, as
// rdma-core's tools print binary private data. "" when there is none.
func PrivateDataText(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if printable(b) {
		return strconv.Quote(string(b))
	}
	return "hex " + hex.EncodeToString(b)
}

func printable(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, r := range string(b) {
		if !unicode.IsPrint(r) && r != '\n' && r != '\t' && r != '\r' {
			return false
		}
	}
	return true
}
