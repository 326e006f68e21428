package config

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-version"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/gocty"
)

// Settings is the content of the rdmaform block(s): the version
// constraint, where state lives and how to reach the agent.
type Settings struct {
	// RequiredVersions are the required_version constraints, one per
	// rdmaform block that sets one, in file order: as Terraform's, each
	// must hold.
	RequiredVersions []RequiredVersion
	Backend          *Backend       // nil: the local backend with its defaults
	Agent            *AgentSettings // nil: the default socket
}

// RequiredVersion is one required_version constraint.
type RequiredVersion struct {
	Constraint string
	Range      hcl.Range // where the value is written
}

// Backend says where state is kept.
type Backend struct {
	Type        string        // "local" or "etcd" (the block label)
	Path        string        // local: path of the state file; "" means DefaultStatePath
	Endpoints   []string      // etcd: client URLs
	Prefix      string        // etcd: key prefix
	TLS         *BackendTLS   // etcd: nil means plain connections
	DialTimeout time.Duration // etcd: 0 means the client's default
	// Username and Password authenticate to an etcd with authentication
	// enabled; "" when unset (ETCDV3_USERNAME and ETCDV3_PASSWORD are read
	// when the backend is opened, not here: see EtcdCredentials).
	Username, Password string
	DeclRange          hcl.Range

	// block is the block decoded, kept for WithOverrides to decode again
	// with init's -backend-config values.
	block *hcl.Block
}

// BackendTLS is the etcd backend's client TLS material.
type BackendTLS struct {
	CAFile, CertFile, KeyFile string
}

// AgentSettings says where the agent's socket is, and under which names
// this configuration's objects are held there.
type AgentSettings struct {
	Socket string // "": the default socket
	// Namespace qualifies the names the agent holds this configuration's
	// objects under (endpoint.client[0]@NAMESPACE), so that two
	// configurations on one host may use the same addresses; "": none.
	Namespace string
	DeclRange hcl.Range
}

// validNamespace is what an agent namespace may be: it ends the agent's
// names for objects, so none of the characters they use to separate
// parts ("/", "#", "@").
var validNamespace = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// DefaultStatePath is the local backend's state file when path is unset.
const DefaultStatePath = "rdmaform.rdmastate"

var (
	settingsOnlySchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "rdmaform"}}}
	settingsSchema     = &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "required_version"}},
		Blocks: []hcl.BlockHeaderSchema{
			{Type: "backend", LabelNames: []string{"type"}},
			{Type: "agent"},
		},
	}
	localBackendSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "path"}}}
	etcdBackendSchema  = &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{
			// Not required in the block: as Terraform's partial
			// configuration, it may come from init's -backend-config
			// (WithOverrides checks that it is set somewhere).
			{Name: "endpoints"},
			{Name: "prefix"},
			{Name: "dial_timeout"},
			{Name: "username"},
			{Name: "password"},
		},
		Blocks: []hcl.BlockHeaderSchema{{Type: "tls"}},
	}
	tlsSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
		{Name: "ca_file"}, {Name: "cert_file"}, {Name: "key_file"},
	}}
	agentSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "socket"}, {Name: "namespace"}}}
)

// LoadBackend reads only the rdmaform block(s) of the configuration in dir:
// the other blocks are not decoded or evaluated, so that state commands
// work while the rest of the configuration is broken. Syntax errors in any
// file are still reported.
func LoadBackend(dir string) (*Settings, hcl.Diagnostics) {
	s, _, diags := NewLoader().LoadBackend(dir)
	return s, diags
}

// LoadBackend is the Loader form of the package-level LoadBackend; the
// Loader can then render the diagnostics.
func (l *Loader) LoadBackend(dir string) (*Settings, []*hcl.File, hcl.Diagnostics) {
	files, diags := l.parseDir(dir)
	var blocks, overrides hcl.Blocks
	for _, f := range files {
		content, _, d := f.Body.PartialContent(settingsOnlySchema)
		diags = append(diags, d...)
		if isOverrideFile(fileName(f)) {
			overrides = append(overrides, content.Blocks...)
		} else {
			blocks = append(blocks, content.Blocks...)
		}
	}
	s, d := decodeSettings(blocks)
	diags = append(diags, d...)
	s, d = overrideSettings(s, overrides)
	diags = append(diags, d...)
	if l.CoreVersion != "" {
		diags = append(diags, checkCoreVersion(s, l.CoreVersion)...)
	}
	return s, files, diags
}

// decodeSettings merges every rdmaform block. As Terraform's terraform
// blocks, each may set required_version (every constraint must hold),
// while the backend and the agent are one per configuration. Within one
// block, an argument or the agent block given twice is refused too.
// Expressions here are literals only: no variables, no functions, as with
// Terraform's backend blocks.
func decodeSettings(blocks hcl.Blocks) (*Settings, hcl.Diagnostics) {
	s := &Settings{}
	var diags hcl.Diagnostics
	for _, b := range blocks {
		content, d := b.Body.Content(settingsSchema)
		diags = append(diags, d...)
		if a, ok := content.Attributes["required_version"]; ok {
			c, d := literalString(a)
			diags = append(diags, d...)
			if c != "" {
				s.RequiredVersions = append(s.RequiredVersions, RequiredVersion{Constraint: c, Range: a.Expr.Range()})
				if _, err := version.NewConstraint(c); err != nil {
					diags = append(diags, &hcl.Diagnostic{
						Severity: hcl.DiagError,
						Summary:  "Invalid required_version",
						Detail:   fmt.Sprintf("%q is not a version constraint (for example \">= 0.1, < 2.0\"): %v.", c, err),
						Subject:  a.Expr.Range().Ptr(),
					})
				}
			}
		}
		for _, nb := range content.Blocks {
			switch nb.Type {
			case "backend":
				if s.Backend != nil {
					diags = append(diags, duplicateDiag("backend block", nb.DefRange, s.Backend.DeclRange))
					continue
				}
				be, d := decodeBackend(nb, nil, false)
				diags = append(diags, d...)
				s.Backend = be
			case "agent":
				if s.Agent != nil {
					diags = append(diags, duplicateDiag("agent block", nb.DefRange, s.Agent.DeclRange))
					continue
				}
				c, d := nb.Body.Content(agentSchema)
				diags = append(diags, d...)
				s.Agent = &AgentSettings{DeclRange: nb.DefRange}
				if a, ok := c.Attributes["socket"]; ok {
					s.Agent.Socket, d = literalString(a)
					diags = append(diags, d...)
				}
				if a, ok := c.Attributes["namespace"]; ok {
					s.Agent.Namespace, d = literalString(a)
					diags = append(diags, d...)
					if !d.HasErrors() && !validNamespace.MatchString(s.Agent.Namespace) {
						diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid agent namespace",
							Detail:  fmt.Sprintf("namespace = %q: a namespace is 1 to 64 letters, digits, \"_\", \"-\" and \".\", such as \"storage-a\".", s.Agent.Namespace),
							Subject: a.Expr.Range().Ptr()})
					}
				}
			}
		}
	}
	return s, diags
}

// decodeBackend decodes a backend block with the arguments in over
// (init's -backend-config values) replacing the block's. complete checks
// what the backend needs whatever its source (the endpoints, a username
// with its password): a partial block is valid configuration (validate
// accepts it), an incomplete backend is not usable.
func decodeBackend(b *hcl.Block, over hcl.Attributes, complete bool) (*Backend, hcl.Diagnostics) {
	be := &Backend{Type: b.Labels[0], DeclRange: b.DefRange, block: b}
	var diags hcl.Diagnostics
	switch be.Type {
	case "local":
		c, d := b.Body.Content(localBackendSchema)
		diags = append(diags, d...)
		attrs, d := mergeOverrides(be.Type, c.Attributes, over, localBackendSchema)
		diags = append(diags, d...)
		if a, ok := attrs["path"]; ok {
			be.Path, d = literalString(a)
			diags = append(diags, d...)
		}
	case "etcd":
		c, d := b.Body.Content(etcdBackendSchema)
		diags = append(diags, d...)
		attrs, d := mergeOverrides(be.Type, c.Attributes, over, etcdBackendSchema)
		diags = append(diags, d...)
		if a, ok := attrs["endpoints"]; ok {
			v, d := literal(a, cty.List(cty.String))
			diags = append(diags, d...)
			if !d.HasErrors() && !v.IsNull() {
				_ = gocty.FromCtyValue(v, &be.Endpoints)
			}
			if !d.HasErrors() && len(be.Endpoints) == 0 {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "No etcd endpoints",
					Detail:   `The etcd backend needs at least one endpoint, such as "http://127.0.0.1:2379".`,
					Subject:  a.Expr.Range().Ptr(),
				})
			}
		} else if complete {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "No etcd endpoints",
				Detail: `The etcd backend needs at least one endpoint: set endpoints in the backend block, ` +
					`or give it to init, as in -backend-config='endpoints=["http://127.0.0.1:2379"]'.`,
				Subject: b.DefRange.Ptr(),
			})
		}
		if a, ok := attrs["prefix"]; ok {
			be.Prefix, d = literalString(a)
			diags = append(diags, d...)
		}
		if a, ok := attrs["dial_timeout"]; ok {
			str, d := literalString(a)
			diags = append(diags, d...)
			if !d.HasErrors() {
				be.DialTimeout, d = parseDuration(str, a.Expr.Range(), false)
				diags = append(diags, d...)
			}
		}
		if a, ok := attrs["username"]; ok {
			be.Username, d = literalString(a)
			diags = append(diags, d...)
		}
		if a, ok := attrs["password"]; ok {
			be.Password, d = secretString(a)
			diags = append(diags, d...)
		}
		if complete {
			diags = append(diags, checkCredentials(be, attrs)...)
		}
		for i, tb := range c.Blocks {
			if i > 0 {
				diags = append(diags, duplicateDiag("tls block", tb.DefRange, c.Blocks[0].DefRange))
				continue
			}
			tc, d := tb.Body.Content(tlsSchema)
			diags = append(diags, d...)
			be.TLS = &BackendTLS{}
			for name, dst := range map[string]*string{"ca_file": &be.TLS.CAFile, "cert_file": &be.TLS.CertFile, "key_file": &be.TLS.KeyFile} {
				if a, ok := tc.Attributes[name]; ok {
					*dst, d = literalString(a)
					diags = append(diags, d...)
				}
			}
			if (be.TLS.CertFile == "") != (be.TLS.KeyFile == "") {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Incomplete TLS client certificate",
					Detail:   "cert_file and key_file must be given together.",
					Subject:  tb.DefRange.Ptr(),
				})
			}
		}
	default:
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Unsupported backend type",
			Detail:   fmt.Sprintf("There is no backend named %q; rdmaform keeps state in \"local\" or \"etcd\".%s", be.Type, DidYouMean(be.Type, []string{"local", "etcd"})),
			Subject:  b.LabelRanges[0].Ptr(),
		})
		return nil, diags
	}
	return be, diags
}

// literal evaluates a settings attribute without variables or functions.
func literal(a *hcl.Attribute, ty cty.Type) (cty.Value, hcl.Diagnostics) {
	v, diags := a.Expr.Value(nil)
	if diags.HasErrors() {
		return cty.NullVal(ty), diags
	}
	cv, err := convert.Convert(v, ty)
	if err != nil || !cv.IsWhollyKnown() {
		return cty.NullVal(ty), hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Incorrect attribute value type",
			Detail:   fmt.Sprintf("Inappropriate value for attribute %q: %s is required.", a.Name, typeWords(ty)),
			Subject:  a.Expr.Range().Ptr(),
		}}
	}
	return cv, nil
}

func literalString(a *hcl.Attribute) (string, hcl.Diagnostics) {
	v, diags := literal(a, cty.String)
	if diags.HasErrors() || v.IsNull() {
		return "", diags
	}
	return v.AsString(), nil
}

// checkCoreVersion reports each required_version this binary does not
// meet.
func checkCoreVersion(s *Settings, current string) hcl.Diagnostics {
	if s == nil {
		return nil
	}
	v, err := version.NewVersion(current)
	if err != nil {
		return nil
	}
	var diags hcl.Diagnostics
	for _, rv := range s.RequiredVersions {
		c, err := version.NewConstraint(rv.Constraint)
		if err != nil || c.Check(v) {
			continue // an invalid one is reported by decodeSettings
		}
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Unsupported rdmaform version",
			Detail:   fmt.Sprintf("This configuration requires rdmaform %s, but this is rdmaform %s.", rv.Constraint, current),
			Subject:  rv.Range.Ptr(),
		})
	}
	return diags
}

// duplicateDiag reports a second declaration at dup of something first
// declared at first, naming both locations.
func duplicateDiag(what string, dup, first hcl.Range) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Duplicate " + what,
		Detail:   fmt.Sprintf("%s was already declared at %s. Each may be declared only once.", capitalize(withArticle(what)), first),
		Subject:  dup.Ptr(),
	}
}

// withArticle puts "a" or "an" before a noun: "an endpoint", "a listener".
func withArticle(noun string) string {
	if noun != "" && strings.ContainsRune("aeiouAEIOU", rune(noun[0])) {
		return "an " + noun
	}
	return "a " + noun
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// parseDuration parses a Go duration string; zeroOK allows "0s".
func parseDuration(s string, rng hcl.Range, zeroOK bool) (time.Duration, hcl.Diagnostics) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid duration",
			Detail:   durationError(s),
			Subject:  rng.Ptr(),
		}}
	}
	if d < 0 || (d == 0 && !zeroOK) {
		return 0, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid duration",
			Detail:   fmt.Sprintf("The duration must be positive; got %q.", s),
			Subject:  rng.Ptr(),
		}}
	}
	return d, nil
}

// durationTerms matches a duration's number-and-unit terms, whatever the
// units: "1h30m", "2.5d".
var durationTerms = regexp.MustCompile(`^[-+]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)\pL+)+$`)

// durationTerm is one term of a duration.
var durationTerm = regexp.MustCompile(`([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(\pL+)`)

// durationError explains why time.ParseDuration rejected s: a unit it
// does not know (days, most often), a value beyond what a duration holds,
// or a string that is no duration at all.
func durationError(s string) string {
	if durationTerms.MatchString(s) {
		var unknown []string
		days := true // every term is in days: suggest the hours
		var hours float64
		for _, m := range durationTerm.FindAllStringSubmatch(s, -1) {
			switch m[2] {
			case "ns", "us", "µs", "μs", "ms", "s", "m", "h":
				days = false
				continue
			case "d":
				n, err := strconv.ParseFloat(m[1], 64)
				days = days && err == nil
				hours += n * 24
			default:
				days = false
			}
			if !contains(unknown, m[2]) {
				unknown = append(unknown, m[2])
			}
		}
		switch {
		case len(unknown) == 0:
			return fmt.Sprintf("%q is too large: a duration can be at most 2562047h47m16.854775807s (about 292 years).", s)
		case contains(unknown, "d"):
			msg := fmt.Sprintf("%q is not a duration: durations have no \"d\" (day) unit; write a day as \"24h\"", s)
			if days && s != "1d" && !strings.HasPrefix(s, "-") && hours <= math.MaxInt32 {
				msg += fmt.Sprintf(" (%q is %q)", s, strconv.FormatFloat(hours, 'f', -1, 64)+"h")
			}
			return msg + "."
		default:
			return fmt.Sprintf("%q is not a duration: %q is not a unit; the units are \"ns\", \"us\", \"ms\", \"s\", \"m\" and \"h\".", s, unknown[0])
		}
	}
	return fmt.Sprintf("%q is not a duration; write a number with a unit, such as \"100ms\", \"2s\" or \"1m30s\".", s)
}
