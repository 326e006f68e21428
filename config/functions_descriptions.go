package config

// descriptions are one-line descriptions of the functions whose
// implementations (go-cty-funcs, HCL's, rdmaform's) carry none, for
// rdmaform metadata functions, as Terraform describes every function.
var descriptions = map[string]string{
	"abspath":          "Converts a filesystem path to an absolute path.",
	"alltrue":          "Returns true if all elements in a given collection are true or \"true\"; it also returns true for an empty collection.",
	"anytrue":          "Returns true if any element in a given collection is true or \"true\"; it returns false for an empty collection.",
	"base64decode":     "Decodes a string containing a Base64 character sequence to the UTF-8 string it encodes.",
	"base64encode":     "Applies Base64 encoding to a string's UTF-8 bytes.",
	"base64sha256":     "Computes the SHA256 hash of a string and encodes the raw hash in Base64.",
	"base64sha512":     "Computes the SHA512 hash of a string and encodes the raw hash in Base64.",
	"basename":         "Takes a string containing a filesystem path and removes all except the last portion from it.",
	"can":              "Evaluates the given expression and returns whether it produced a result without errors.",
	"cidrhost":         "Calculates a full host IP address for a given host number within a given IP network address prefix.",
	"cidrnetmask":      "Converts an IPv4 address prefix given in CIDR notation into a subnet mask address.",
	"cidrsubnet":       "Calculates a subnet address within a given IP network address prefix.",
	"cidrsubnets":      "Calculates a sequence of consecutive IP address ranges within a particular CIDR prefix.",
	"coalesce":         "Takes any number of arguments and returns the first one that is not null or an empty string.",
	"dirname":          "Takes a string containing a filesystem path and removes the last portion from it.",
	"endswith":         "Takes two values: a string to check and a suffix string; returns true if the first string ends with that exact suffix.",
	"file":             "Reads the contents of a file at the given path and returns them as a string.",
	"filebase64":       "Reads the contents of a file at the given path and returns them as a Base64-encoded string.",
	"filebase64sha256": "Computes the SHA256 hash of a file's contents and encodes the raw hash in Base64.",
	"filebase64sha512": "Computes the SHA512 hash of a file's contents and encodes the raw hash in Base64.",
	"fileexists":       "Determines whether a file exists at a given path.",
	"filemd5":          "Computes the MD5 hash of a file's contents, in hexadecimal.",
	"fileset":          "Enumerates a set of regular file names given a directory path and a glob pattern.",
	"filesha1":         "Computes the SHA1 hash of a file's contents, in hexadecimal.",
	"filesha256":       "Computes the SHA256 hash of a file's contents, in hexadecimal.",
	"filesha512":       "Computes the SHA512 hash of a file's contents, in hexadecimal.",
	"index":            "Finds the element index for a given value in a list.",
	"issensitive":      "Returns true if the given value is marked as sensitive.",
	"length":           "Determines the length of a given list, map, or string.",
	"lookup":           "Retrieves the value of a single element from a map, given its key; without a default, a missing key is an error.",
	"matchkeys":        "Constructs a new list by taking a subset of elements from one list whose indexes match the corresponding indexes of values in another list.",
	"md5":              "Computes the MD5 hash of a given string, in hexadecimal.",
	"nonsensitive":     "Takes a sensitive value and returns a copy of that value with the sensitive marking removed.",
	"one":              "Takes a list, set, or tuple of zero or one elements and returns its element, or null when it has none.",
	"pathexpand":       "Takes a filesystem path that might begin with a ~ segment, and if so replaces it with the current user's home directory path.",
	"replace":          "Searches a string for a substring, and replaces each occurrence with a replacement string; a substring between slashes is a regular expression.",
	"sensitive":        "Takes any value and returns a copy of it marked as sensitive.",
	"sha1":             "Computes the SHA1 hash of a given string, in hexadecimal.",
	"sha256":           "Computes the SHA256 hash of a given string, in hexadecimal.",
	"sha512":           "Computes the SHA512 hash of a given string, in hexadecimal.",
	"startswith":       "Takes two values: a string to check and a prefix string; returns true if the string begins with that exact prefix.",
	"strcontains":      "Takes two values: a string to check and an expected substring; returns true if the string has the substring within it.",
	"sum":              "Takes a list or set of numbers and returns the sum of those numbers.",
	"templatefile":     "Reads the file at the given path and renders its content as a template using a supplied set of template variables.",
	"timecmp":          "Compares two timestamps and returns a number that represents the ordering of the instants those timestamps represent.",
	"transpose":        "Takes a map of lists of strings and swaps the keys and values to produce a new map of lists of strings.",
	"try":              "Evaluates all of its argument expressions in turn and returns the result of the first one that does not produce any errors.",
	"urlencode":        "Applies URL encoding to a given string.",
	"uuidv5":           "Generates a name-based UUID, as described in RFC 4122 section 4.3.",
	"yamldecode":       "Parses a string as a subset of YAML, and produces a representation of its value.",
	"yamlencode":       "Encodes a given value to a string using YAML 1.2 block syntax.",
}

// Description is the description of the function name: its own, or
// rdmaform's where its implementation has none.
func Description(name string) string {
	if f, ok := Functions()[name]; ok && f.Description() != "" {
		return f.Description()
	}
	return descriptions[name]
}
