// Package config turns a directory of rdmaform configuration files into
// the desired state that the planner diffs against the state file.
//
// # Files
//
// A configuration is every *.rdma.hcl file of one directory (and
// *.rdma.json, HCL's JSON syntax), read together; override files
// (override.rdma.hcl, *_override.rdma.hcl) are merged into the blocks of the
// others (see override.go). Variable values come from
// -var 'name=value', -var-file=FILE, the environment (RDMAFORM_VAR_name),
// and the auto-loaded rdmaform.rdmavars and *.auto.rdmavars files, with
// Terraform's precedence (see VarInputs). Commands collect -var and
// -var-file in order with VarArgs.Register.
//
// # Loading
//
//	l := config.NewLoader()          // one hclparse.Parser per run
//	l.CoreVersion = Version          // checked against required_version
//	cfg, diags := l.Load(".", config.VarInputs{Args: vars, Env: os.Environ()})
//	l.WriteDiagnostics(os.Stderr, diags, color, width) // file:line:col and source
//	l.WriteJSON(os.Stdout, diags)    // machine-readable, as validate -json
//
// Load never stops at the first problem: diagnostics accumulate, are
// reported once each (a problem in a block with count = 1000 is reported
// once), and come in source order. cfg is never nil; when diags has errors
// it holds whatever could be evaluated.
//
// LoadBackend reads only the rdmaform block(s), for state commands that must
// work while the rest of the configuration is broken.
//
// # Evaluation
//
// Loading follows HCL's two-phase design. Phase one decodes the top level
// of every file against a schema into declarations: variables, locals,
// outputs and blocks (protection_domain, listener, endpoint) whose bodies
// are decoded but not evaluated. Each expression's references
// (hcl.Expression.Variables) are typed (var.x, local.x, listener.x[0].port,
// count.index, each.key, rdmaform.workspace: the Loader's Workspace;
// path.module, path.root and path.cwd: see below) and
// checked: undeclared objects and attributes are
// errors with "did you mean". The references and depends_on form a
// dependency graph; a cycle is one diagnostic naming every member with its
// location. Phase two evaluates the nodes in dependency order, each with an
// hcl.EvalContext holding just the values it references, which keeps a
// 10,000-block configuration linear.
//
// Attributes known only after apply (id, qp_num, device, port_num,
// local_address, local_port, status) are cty unknowns, so anything computed
// from them is unknown too: Instance.Known says whether a value is known
// now, and the planner shows the others as (known after apply).
//
// # The result
//
// Config.Instances maps each addrs.Instance (endpoint.client[3],
// listener.svc["blocks"]) to an Instance with:
//
//   - Value: the evaluated cty object, every attribute of Schema(kind)
//     present, defaults filled in, unknowns where values come after apply;
//   - exactly one typed struct: ProtectionDomain, Listener or Endpoint (with
//     QP, Accept, Connect, Reconnect, Probe), with durations parsed and
//     private data as bytes; fields whose value is unknown are zero;
//   - Resource: the block, with DependsOn (the blocks referenced directly,
//     through locals, or by depends_on) and Lifecycle (prevent_destroy,
//     create_before_destroy, ignore_changes as attribute paths, qp.max_send_wr
//     or in Terraform's spellings qp[0].max_send_wr and connect["timeout"]).
//
// Outputs are evaluated (they may be unknown); Variables and Locals keep
// their values. OutputsWith evaluates the outputs again with objects'
// values known after apply (the planner's from the state, apply's from
// what it made), and InstanceWith an instance whose attributes use such
// values (UsesValuesAfterApply says which blocks may): the
// planner evaluates it with what the state records, apply with what it
// made; the locals they use that reach objects are evaluated again too.
//
// # Functions
//
// Expressions call Terraform's functions by Terraform's names (see
// Functions): numbers (abs, ceil, floor, log, max, min, parseint, pow,
// signum, sum); strings (chomp, endswith, format, formatlist, indent,
// join, lower, regex, regexall, replace, split, startswith, strcontains,
// strrev, substr, title, trim, trimprefix, trimsuffix, trimspace, upper);
// collections (alltrue, anytrue, chunklist, coalesce, coalescelist,
// compact, concat, contains, distinct, element, flatten, index, keys,
// length, lookup, matchkeys, merge, one, range, reverse,
// setintersection, setproduct, setsubtract, setunion, slice, sort,
// transpose, values, zipmap); encodings (base64encode, base64decode,
// base64gzip, textencodebase64, textdecodebase64, csvdecode, jsonencode,
// jsondecode, urlencode, yamlencode, yamldecode);
// hashes (md5, sha1, sha256, sha512, base64sha256, base64sha512, and of
// a file's bytes filemd5, filesha1, filesha256, filesha512,
// filebase64sha256, filebase64sha512); formatdate, timeadd and timecmp;
// plantimestamp, the plan's time (Loader.PlanTimestamp, which a saved
// plan records for its apply); timestamp and uuid are absent on purpose
// (new at every apply, they would replace their objects at every plan),
// and calling them, or the console's type, says so;
// uuidv5; cidrhost,
// cidrnetmask, cidrsubnet and cidrsubnets; tostring, tonumber, tobool,
// tolist, toset and tomap; try and can; sensitive, nonsensitive and
// issensitive; file, filebase64, fileexists, fileset, templatefile (not
// within a template) and the path functions read
// paths relative to the working directory (the configuration's). As in
// Terraform's root module, path.module and path.root are "." (that
// directory: file("${path.module}/peer.txt")), and path.cwd is the
// absolute directory rdmaform was started in, before -chdir (the
// Loader's StartDir).
//
// A sensitive variable's value is sensitive in expressions, as is what
// sensitive() returns, and so is what is computed from them (through
// locals too), until nonsensitive() (which, as Terraform's since v1.6,
// returns a value that is not sensitive as it is). Objects' values carry
// no sensitivity: Instance.Value, Outputs and every value the package
// returns are plain. Instead Instance.Sensitive lists the paths of the
// attributes whose value is sensitive (accept.private_data = local.pd
// where local.pd uses a sensitive variable), which plan, apply, destroy
// and show print as (sensitive value). The expressions that reference a
// block see its sensitive attributes marked, so an attribute or output
// computed from another block's sensitive attribute (port =
// listener.l.port) is sensitive too, as is each.value where the for_each
// map's value is (for_each itself refuses a sensitive value, whose keys
// would become addresses); sensitivity is not followed through values
// known only after apply.
//
// # Conditions
//
// A block's lifecycle may hold Terraform's precondition and postcondition
// blocks (Lifecycle.Preconditions, Postconditions). Preconditions are
// checked per instance while loading; one that uses values known only
// after apply sets Instance.PreconditionsAfterApply and apply checks it
// before making the object. Postconditions may use self, the object as
// made; apply checks them (Config.CheckConditions), and the planner
// those of objects it leaves unchanged (CheckKnownPostconditions). Check blocks
// (Config.Checks) hold assertions about the whole configuration; loading
// checks their references, the planner and apply evaluate them
// (ChecksWith) and warn.
//
// # Moved blocks
//
// moved { from = endpoint.client  to = endpoint.clients } (or from and to
// one instance each) says the state's objects at from are now the
// configuration's to: Config.Moved lists them (Moved.Target follows one);
// the planner relabels the objects instead of replacing them. from must
// no longer be declared, and both name the same kind. import { to =
// endpoint.client[0]  id = "..." } (Config.Imports) adopts the object the
// agent holds as id when the state does not hold to; with for_each (a
// map, a set of strings or a list), to = endpoint.client[each.key] and id
// may use each.key and each.value, and Imports holds one per element. removed { from =
// endpoint.old  lifecycle { destroy = false } } (Config.Removed) says the
// planner forgets the state's objects there rather than destroying them.
//
// # Agents
//
// An agent "NAME" block (Config.Agents, by Key: agent.compute,
// agent.storage["s1"], agent.r[0]) says how the CLI reaches one host's
// agent: address (HOST:PORT, [ADDR]:PORT for IPv6; checked) and a tls
// block with ca_file, cert_file, key_file (required) and server_name.
// There is no plaintext mode, so a block without tls is an error. It may
// have count or for_each and use variables, local values and other
// agents, not objects. Relative tls paths are joined to the directory
// Load was given (see AgentTLS); the files are not read.
//
// protection_domain, listener and endpoint blocks choose theirs with the
// agent meta-argument, a static reference as OpenTofu 1.9's provider
// references: agent = agent.compute, or agent = agent.storage[each.key]
// for an expanded agent block, the index evaluated per instance
// (agent_ref.go). Instance.Agent is the chosen agent's Key; "" is the
// local agent (the rdmaform block's agent settings), which every object
// without the argument keeps. Errors: an undeclared agent (with did you
// mean), an expanded agent without an index or with a key it does not
// have (its keys are listed), an index on one that is not expanded,
// anything but a reference (a string); two agent instances with one
// address; an object whose pd is the id of a protection domain on another
// agent (a protection domain belongs to one host: checkPDAgent). The
// listeners' bind rules hold per agent. Expressions may read an agent's
// attributes (agent.compute.address).
//
// # Test files
//
// Loader.ParseTestFile reads an rdmaform test file (*.rdmatest.hcl, as
// terraform test's *.tftest.hcl): a variables block and run blocks with
// command, variables, assert and expect_failures (TestFile, TestRun). The
// parser is the loader's, so that diagnostics quote the test file beside
// the configuration. Config.CheckTestRefs types an assertion's references
// (the configuration's, plus output.NAME and live.KIND.NAME), and
// Config.EvalTest evaluates it in a TestScope: the objects' values (the
// state's or the plan's), the outputs, and the agent's live view of each
// object (LiveType: status, connections, reconnects, error, probe round
// trips), shaped as its block is. The test command is in package command;
// users' documentation in docs/testing.md.
//
// # Schema
//
// Schema(kind) describes every attribute: type, default, whether it is
// computed, and whether a change forces replacement. RequiresReplace(kind,
// path) answers the planner's "# forces replacement" question: address,
// port, port_space, pd, source_address, a protection domain's device, a
// listener's backlog (rdma_listen takes it once), every qp attribute and
// every connect attribute (a connection is negotiated once), a listener's
// srq block (its connections' QPs are made on the SRQ), and every
// accept attribute but max_connections (the listener's connections were
// accepted with them) force replacement; accept.max_connections,
// reconnect, probe and timeouts change in place. Replacing a listener replaces the
// endpoints connected to it that have no reconnect block, and updates
// those with one, apply waiting for their new connections (README).
//
// # Defaults
//
// port_space "tcp"; backlog 1024 (the kernel's max_backlog: a burst of
// connect requests beyond the backlog is dropped); a qp
// block's type is "rc" on the tcp and ib port spaces and "ud" on udp and
// ipoib; max_send_wr and max_recv_wr 64, SGEs 1, max_inline_data 0; accept
// and connect responder_resources and initiator_depth null (FromDevice: the
// device's limits, and the request's offer for an accept); no options
// block (the kernel's defaults); accept
// max_connections 1024 on a connected listener (each connection holds a
// cm_id, a QP and two of the agent's descriptors, and any peer that
// reaches the port may ask; 0 says no limit, and a datagram listener,
// which makes no connections, has none; the plan shows it as it shows
// every default, so a listener made before there was a default shows an
// in-place update to 1024); connect
// retry_count 7, rnr_retry_count 7 (retry forever), timeout "2s" (address
// and route resolution, as rdma_resolve_addr's and rdma_resolve_route's
// timeout_ms; the connect itself then waits for ESTABLISHED up to the
// timeouts block's create, "30s" by default, while the kernel's CM
// retries its request; reconnects wait 30 s); reconnect min_backoff "1s", max_backoff "30s"
// (an omitted reconnect block means no automatic reconnection; a reconnect
// block applies once the endpoint has connected: a first connect that
// fails, with no listener up yet, fails its create, as a Terraform
// resource's failed create does, and the next apply tries again); probe
// interval "1s", size 64, timeout "1s", mode "send" (or "write", "read":
// RDMA WRITE and READ of the echoing listener's probe memory; "rping":
// rping's exchange with `rping -s`; see probe_mode.go). An omitted qp block still gets a
// QP of the port space's type (rc for tcp and ib, ud for udp and ipoib)
// with the agent's defaults: 16 send and 16 receive work requests, one SGE
// each, 64 bytes inline; echo and probes need the qp block written out
// all the same (qp {}), so that what they use is declared. Omitted accept
// or connect blocks mean all their defaults.
//
// # Private data
//
// private_data (connect and accept) and reject_private_data (accept, sent
// when a request is refused, for example over max_connections) are strings,
// sent as their UTF-8 bytes (text: HCL strings, as Terraform's, hold
// Unicode text, so bytes that are not UTF-8, such as 0xff, cannot be
// written; base64decode too refuses a result that is not UTF-8). Bytes
// that are not text, such as a ULP's binary header, are given in base64
// instead, as Terraform's local_file takes content_base64:
// private_data_base64 (connect and accept) and reject_private_data_base64
// (accept), for example "gAH+/w==" for 80 01 fe ff, or
// filebase64("${path.module}/header.bin"). Each is instead of its text
// form: both set (and not null) is an error. They are decoded when the
// configuration is loaded (base64's standard alphabet with padding, as
// base64encode writes it), so invalid base64 is an error at the attribute,
// and their decoded bytes are held to the same limits. Their limits are librdmacm's (see PrivateDataLimit): 56
// bytes to connect, 196 to accept, 148 to reject on tcp and ib (RC/UC); 180
// to connect and 136 to accept or reject on udp and ipoib (SIDR). A change
// of any of them replaces the object.
//
// # Validation
//
// Besides HCL's own checks (unknown blocks and arguments with suggestions,
// types, required arguments), Load checks: ports 1-65535; backlog 1-65535;
// QP caps from 1 (max_inline_data from 0) up to static limits no device
// exceeds (1048576 WRs, 64 SGEs, 4096 inline bytes; probes of up to 4096 bytes); responder_resources and
// initiator_depth 0-255; options' type_of_service 0-255 and ack_timeout
// 0-31 (RC QPs only), ipv6_only not on an IPv4 listener; retry counts 0-7;
// private data limits; QP type
// against port space (tcp: rc; udp and ipoib: ud; ib: any); probe and echo
// need an RC or UD QP; durations parse and are positive, min_backoff ≤
// max_backoff (a timeouts.create under 100ms is a warning: the create may
// fail although the peer answers); private data in one form, valid base64; addresses are IP literals or host names, an IPv6
// link-local address names its interface (fe80::1%eth0), and an endpoint's
// source_address is of its address's family (IPv4 or IPv6); duplicate names;
// two listeners of one agent on the same address, port and port space (or
// one of them on every address of the other's family, 0.0.0.0 or ::); agents
// (see Agents); count and
// for_each together; count a whole number up to Loader.MaxInstances;
// for_each a map or a set of strings (an empty one, such as toset([]), of
// any element type, makes no instances); variable validation rules; an output
// whose value is sensitive (see Functions) must be sensitive too.
// Diagnostics never show a value derived from a sensitive variable: not
// in their "with var.x as ..." line, and not in their details, which say
// "(sensitive value)" instead. Values that depend on the live device are
// checked by CheckDevice with a DeviceLimits (validate -device-check;
// later plan, through the agent): QP caps within its limits,
// responder_resources and initiator_depth within max_qp_rd_atom and
// max_qp_init_rd_atom (255 asks for the maximum), addresses it serves, and
// port space ipoib only on an InfiniBand port.
//
// Variables take Terraform's arguments: type (with optional(type,
// default) attributes), default, description, sensitive, nullable and
// validation blocks (whose conditions may use the other variables and locals, as
// Terraform 1.9's). A failed validation is reported with the values its
// condition read, and nothing that depends on the variable is reported. A
// variable without a type takes a -var or
// RDMAFORM_VAR_ value as a string; with a type other than string, as an
// expression.
//
// In validate mode (Loader.Validate) variables without a value are unknown
// and a block whose count or for_each is unknown is checked once with
// unknown keys, as terraform validate does.
package config
