// Command generate regenerates the client's types from the OpenAPI document a Doorman serves
// (GET /v1/openapi.json), so the client and the contract cannot drift apart unnoticed:
//
//   - internal/generated/openapi.gen.go: the schemas as Go structs, written by oapi-codegen
//     (types only, the version pinned below, run with `go run module@version`, so it never
//     becomes a dependency of the client's module);
//   - known_values.gen.go (package doorman): the known values of the open sets
//     (`x-service-known-values`), the closed enums the public API names, and the event types
//     whose `ip` is required, read from VerdictRequest's allOf if/then, which no generator turns
//     into Go.
//
// With -check it writes nothing, and exits 1 with "out of date" when a checked-in file differs
// from what the document generates.
//
//	go run ./internal/cmd/generate [-check] [URL or file]
//
// The default source is http://127.0.0.1:8080/v1/openapi.json (a local `doorman serve`).
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/format"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// The generator, pinned. Changing it changes the generated file: regenerate and commit both.
const oapiCodegen = "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2"

const modulePath = "github.com/doorman-oss/doorman/clients/go"

const defaultSource = "http://127.0.0.1:8080/v1/openapi.json"

func main() {
	check := flag.Bool("check", false, "write nothing; exit 1 when the checked-in files are out of date")
	prefetch := flag.Bool("prefetch", false, "only download and build the pinned generator (an install step), then exit")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: go run ./internal/cmd/generate [-check] [URL or file; default %s]\n", defaultSource)
		flag.PrintDefaults()
	}
	flag.Parse()
	if *prefetch {
		if err := runGenerator("-version"); err != nil {
			fmt.Fprintf(os.Stderr, "[generate] %v\n", err)
			os.Exit(1)
		}
		return
	}
	source := defaultSource
	if flag.NArg() > 0 {
		source = flag.Arg(0)
	}
	if err := run(source, *check); err != nil {
		fmt.Fprintf(os.Stderr, "[generate] %v\n", err)
		os.Exit(1)
	}
}

// errStale is returned (after the differences are printed) when -check finds a difference.
var errStale = errors.New("run `go run ./internal/cmd/generate <served openapi.json URL>` in clients/go and commit the result")

func run(source string, check bool) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	raw, err := readDocument(source)
	if err != nil {
		return err
	}
	var document map[string]any
	decoder := json.NewDecoder(bytes.NewReader(raw))
	decoder.UseNumber()
	if err := decoder.Decode(&document); err != nil {
		return fmt.Errorf("%s is not a JSON document: %w", source, err)
	}

	models, err := generateModels(document)
	if err != nil {
		return err
	}
	known, err := knownValues(document)
	if err != nil {
		return err
	}
	files := []struct {
		path string
		text []byte
	}{
		{"internal/generated/openapi.gen.go", models},
		{"known_values.gen.go", known},
	}

	stale := 0
	for _, file := range files {
		target := filepath.Join(root, filepath.FromSlash(file.path))
		current, err := os.ReadFile(target)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		if bytes.Equal(current, file.text) {
			continue
		}
		if !check {
			if err := os.WriteFile(target, file.text, 0o644); err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "[generate] wrote %s\n", file.path)
			continue
		}
		stale++
		line, was, now := firstDifference(string(current), string(file.text))
		fmt.Fprintf(os.Stderr, "[generate] %s is out of date with %s (first difference at line %d):\n", file.path, source, line)
		fmt.Fprintf(os.Stderr, "  checked in: %s\n  generated:  %s\n", was, now)
	}
	if stale > 0 {
		return errStale
	}
	if check {
		fmt.Fprintf(os.Stderr, "[generate] the generated files match %s\n", source)
	}
	return nil
}

// moduleRoot finds the client's folder from the working directory up, so the command works from
// clients/go or any folder below it.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.Contains(mod, []byte("module "+modulePath+"\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("run this inside the client's module (%s)", modulePath)
		}
		dir = parent
	}
}

func readDocument(source string) ([]byte, error) {
	if !strings.HasPrefix(source, "http://") && !strings.HasPrefix(source, "https://") {
		return os.ReadFile(source)
	}
	client := &http.Client{Timeout: 30 * time.Second}
	res, err := client.Get(source)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s answered %d", source, res.StatusCode)
	}
	return io.ReadAll(res.Body)
}

// generateModels runs oapi-codegen (models only) on the document. One adaptation first: a schema
// whose `type` is a list of types (OpenAPI 3.1, e.g. a reason's detail values, string, number or
// boolean) is left untyped, because oapi-codegen cannot turn such a list into Go; it then reads
// as any JSON value.
func generateModels(document map[string]any) ([]byte, error) {
	adapted := untypeTypeLists(deepCopy(document))
	dir, err := os.MkdirTemp("", "doorman-generate-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	spec, err := json.MarshalIndent(adapted, "", "  ")
	if err != nil {
		return nil, err
	}
	specPath := filepath.Join(dir, "openapi.json")
	outPath := filepath.Join(dir, "openapi.gen.go")
	configPath := filepath.Join(dir, "config.yaml")
	config := strings.Join([]string{
		"package: generated",
		"generate:",
		"  models: true",
		"output-options:",
		"  name-normalizer: ToCamelCaseWithInitialisms",
		// Keep the schemas only the webhooks name (ReviewResolvedWebhook): pruning follows paths alone.
		"  skip-prune: true",
		"output: " + outPath,
		"",
	}, "\n")
	if err := os.WriteFile(specPath, spec, 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(configPath, []byte(config), 0o600); err != nil {
		return nil, err
	}
	if err := runGenerator("-config", configPath, specPath); err != nil {
		return nil, err
	}
	generated, err := os.ReadFile(outPath)
	if err != nil {
		return nil, err
	}
	version := ""
	if info, ok := document["info"].(map[string]any); ok {
		version, _ = info["version"].(string)
	}
	header := fmt.Sprintf("// The contract's schemas (version %s) as Go types, generated by internal/cmd/generate with\n"+
		"// %s from the served OpenAPI document. Never edit it by hand.\n\n", version, oapiCodegen)
	return append([]byte(header), generated...), nil
}

// runGenerator runs the pinned oapi-codegen, downloading and building it on first use.
func runGenerator(args ...string) error {
	cmd := exec.Command(goCommand(), append([]string{"run", oapiCodegen}, args...)...)
	cmd.Stdout = os.Stderr
	cmd.Stderr = os.Stderr
	// `go run module@version` builds outside this module: the caller's -mod flag does not apply.
	cmd.Env = append(os.Environ(), "GOFLAGS="+withoutModFlag(os.Getenv("GOFLAGS")))
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s failed: %w", oapiCodegen, err)
	}
	return nil
}

func goCommand() string {
	if path, err := exec.LookPath("go"); err == nil {
		return path
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

func withoutModFlag(goflags string) string {
	var kept []string
	for _, flag := range strings.Fields(goflags) {
		if !strings.HasPrefix(flag, "-mod=") {
			kept = append(kept, flag)
		}
	}
	return strings.Join(kept, " ")
}

func deepCopy(value any) any {
	switch v := value.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for key, item := range v {
			out[key] = deepCopy(item)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, item := range v {
			out[i] = deepCopy(item)
		}
		return out
	default:
		return v
	}
}

func untypeTypeLists(value any) any {
	switch v := value.(type) {
	case map[string]any:
		if types, ok := v["type"].([]any); ok && len(types) > 1 {
			delete(v, "type")
		}
		for _, item := range v {
			untypeTypeLists(item)
		}
	case []any:
		for _, item := range v {
			untypeTypeLists(item)
		}
	}
	return value
}

// A set of string values the public package names with typed constants.
type valueSet struct {
	goType string
	prefix string
	doc    string
	from   string // where in the document, for the comment and the error
	values []string
	list   string // the unexported slice holding them all, when the package needs one
}

func knownValues(document map[string]any) ([]byte, error) {
	known, _ := document["x-service-known-values"].(map[string]any)
	if known == nil {
		return nil, errors.New("the document has no x-service-known-values: the generator needs updating")
	}
	sets := []valueSet{
		{goType: "ReasonCode", prefix: "Reason", list: "knownReasonCodes", from: "x-service-known-values reason_codes",
			doc: "Reason codes Doorman sends today. The set is open: treat a code not listed here as informational."},
		{goType: "ErrorCode", prefix: "Code", list: "knownErrorCodes", from: "x-service-known-values error_codes",
			doc: "Error codes Doorman answers today. The set is open: a later Doorman may answer others."},
		{goType: "RecommendedAction", prefix: "Action", list: "knownRecommendedActions", from: "x-service-known-values recommended_actions",
			doc: "Recommended actions Doorman gives today. The set is open: an unknown one is advice you may ignore."},
		{goType: "SignalSource", prefix: "Source", list: "knownSignalSources", from: "x-service-known-values signal_sources",
			doc: "Signal sources a degraded verdict can name today. The set is open; SourceUnknown is added by the client."},
	}
	for i, field := range []string{"reason_codes", "error_codes", "recommended_actions", "signal_sources"} {
		values, err := stringList(known[field])
		if err != nil || len(values) == 0 {
			return nil, fmt.Errorf("x-service-known-values.%s is not a list of strings: the generator needs updating", field)
		}
		sets[i].values = values
	}

	enums := []valueSet{
		{goType: "EventType", prefix: "Event", list: "eventTypes", from: "VerdictRequest.event_type",
			doc: "The funnel moments Doorman screens."},
		{goType: "Verdict", prefix: "Verdict", from: "VerdictResponse.verdict",
			doc: "The verdicts: allow (proceed), review (proceed, be ready to revoke), block (stop with a generic error)."},
		{goType: "Resolution", prefix: "Resolution", from: "ReviewResolvedWebhook.resolution",
			doc: "A human's resolution of a review: approved (nothing to do) or denied (revoke the account)."},
		{goType: "ReviewStatus", prefix: "Review", from: "StoredEvent.review.status",
			doc: "Where a stored review verdict's human resolution stands."},
		{goType: "FeedbackOutcome", prefix: "Outcome", from: "FeedbackRequest.outcome",
			doc: "What happened, as reported with Feedback.Report."},
		{goType: "SubjectKind", prefix: "Subject", from: "FeedbackSubject.kind",
			doc: "What a feedback report is about (a closed set)."},
		{goType: "CardFunding", prefix: "Funding", from: "Payment.card_funding",
			doc: "A card's funding; leave it empty when you do not know it (unknown fires no rule)."},
		{goType: "HealthStatus", prefix: "Health", from: "Health.status",
			doc: "GET /health's overall status: unavailable names the dependency that is down in Checks."},
		{goType: "CheckStatus", prefix: "Check", from: "HealthCheck.status",
			doc: "One dependency's status in GET /health."},
	}
	for i := range enums {
		values, err := schemaEnum(document, enums[i].from)
		if err != nil {
			return nil, err
		}
		enums[i].values = values
	}

	ipRequired, err := ipRequiredEventTypes(document)
	if err != nil {
		return nil, err
	}

	version := ""
	if info, ok := document["info"].(map[string]any); ok {
		version, _ = info["version"].(string)
	}
	var b strings.Builder
	b.WriteString("// Code generated by internal/cmd/generate from the served OpenAPI document. DO NOT EDIT.\n")
	b.WriteString("// Run `go run ./internal/cmd/generate <URL of /v1/openapi.json>` after a contract change.\n\n")
	b.WriteString("package doorman\n\n")
	fmt.Fprintf(&b, "// ContractVersion is the version of the contract these types were generated from.\nconst ContractVersion = %q\n\n", version)
	for _, set := range append(sets, enums...) {
		writeSet(&b, set)
	}
	b.WriteString("// ipRequiredEventTypes are the event types whose VerdictRequest requires ip (its allOf if/then).\n")
	b.WriteString("var ipRequiredEventTypes = []EventType{")
	for i, value := range ipRequired {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", value)
	}
	b.WriteString("}\n")
	return format.Source([]byte(b.String()))
}

func writeSet(b *strings.Builder, set valueSet) {
	fmt.Fprintf(b, "// %s (%s)\nconst (\n", set.doc, set.from)
	for _, value := range set.values {
		fmt.Fprintf(b, "\t%s %s = %q\n", set.prefix+goName(value), set.goType, value)
	}
	b.WriteString(")\n\n")
	if set.list != "" {
		fmt.Fprintf(b, "var %s = []%s{", set.list, set.goType)
		for i, value := range set.values {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(set.prefix + goName(value))
		}
		b.WriteString("}\n\n")
	}
}

// goName turns a snake_case value into a Go identifier's tail, with Go's initialisms:
// velocity_ip_signups gives VelocityIPSignups.
func goName(value string) string {
	initialisms := map[string]string{"id": "ID", "ip": "IP", "mx": "MX", "ato": "ATO", "dns": "DNS", "rdap": "RDAP", "ok": "OK", "url": "URL"}
	var b strings.Builder
	for _, part := range strings.FieldsFunc(value, func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
		if upper, ok := initialisms[part]; ok {
			b.WriteString(upper)
			continue
		}
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

func stringList(value any) ([]string, error) {
	items, ok := value.([]any)
	if !ok {
		return nil, errors.New("not a list")
	}
	out := make([]string, 0, len(items))
	for _, item := range items {
		s, ok := item.(string)
		if !ok {
			return nil, errors.New("not a string")
		}
		out = append(out, s)
	}
	return out, nil
}

// schemaEnum reads the enum of a property of a component schema, named Schema.prop[.prop...].
func schemaEnum(document map[string]any, path string) ([]string, error) {
	parts := strings.Split(path, ".")
	node := lookup(document, "components", "schemas", parts[0])
	for _, prop := range parts[1:] {
		node = lookup(node, "properties", prop)
	}
	values, err := stringList(lookup(node, "enum"))
	if err != nil || len(values) == 0 {
		return nil, fmt.Errorf("%s has no enum of strings: the generator needs updating", path)
	}
	return values, nil
}

func lookup(node any, keys ...string) any {
	for _, key := range keys {
		m, ok := node.(map[string]any)
		if !ok {
			return nil
		}
		node = m[key]
	}
	return node
}

// ipRequiredEventTypes reads VerdictRequest's conditionals: each allOf member whose `then`
// requires ip names, in its `if`, the event types it applies to.
func ipRequiredEventTypes(document map[string]any) ([]string, error) {
	conditionals, _ := lookup(document, "components", "schemas", "VerdictRequest", "allOf").([]any)
	var types []string
	for _, conditional := range conditionals {
		required, _ := stringList(lookup(conditional, "then", "required"))
		if !contains(required, "ip") {
			continue
		}
		values, err := stringList(lookup(conditional, "if", "properties", "event_type", "enum"))
		if err != nil {
			return nil, errors.New("a VerdictRequest conditional requires ip without an event_type enum: the generator needs updating")
		}
		types = append(types, values...)
	}
	if len(types) == 0 {
		return nil, errors.New("VerdictRequest has no conditional that requires ip: the generator needs updating")
	}
	return types, nil
}

func contains(list []string, value string) bool {
	for _, item := range list {
		if item == value {
			return true
		}
	}
	return false
}

func firstDifference(was, now string) (int, string, string) {
	a, b := strings.Split(was, "\n"), strings.Split(now, "\n")
	for i := 0; ; i++ {
		if i >= len(a) || i >= len(b) || a[i] != b[i] {
			return i + 1, lineOrEnd(a, i), lineOrEnd(b, i)
		}
	}
}

func lineOrEnd(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(end of file)"
}
