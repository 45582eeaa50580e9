package opensearchtest

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// index is one OpenSearch index: one shard, no replicas assigned (a single
// node), documents with a real-time view (get) and a refreshed view (search).
type index struct {
	name     string
	uuid     string
	settings map[string]string // flattened, "index." prefixed, values as strings
	mapping  *mapping
	aliases  *jv
	docs     map[string]*docEntry
	pending  map[string]struct{} // ids written since the last refresh
	seqNo    int64               // last sequence number used
	live     int                 // documents in the real-time view
}

// docEntry holds a document's real-time (latest) and searchable (visible)
// versions; nil means absent in that view.
type docEntry struct {
	latest  *docVersion
	visible *docVersion
	version int64 // survives deletes, as OpenSearch's version map does
	seqNo   int64 // sequence number of the last operation, delete included
}

type docVersion struct {
	id      string
	source  []byte
	fields  map[string][]ival // path -> indexed values; a key with no values still "exists"
	version int64
	seqNo   int64 // also the Lucene doc order: a re-indexed doc moves to the end
}

func (ix *index) maxResultWindow() int {
	if v, err := strconv.Atoi(ix.settings["index.max_result_window"]); err == nil {
		return v
	}
	return 10000
}

func (ix *index) shards() int {
	if v, err := strconv.Atoi(ix.settings["index.number_of_shards"]); err == nil && v > 0 {
		return v
	}
	return 1
}

func (ix *index) replicas() int {
	if v, err := strconv.Atoi(ix.settings["index.number_of_replicas"]); err == nil && v >= 0 {
		return v
	}
	return 1
}

// shardCounts is a "_shards" object of a write or refresh.
type shardCounts struct {
	Total      int `json:"total"`
	Successful int `json:"successful"`
	Failed     int `json:"failed"`
}

// shardInfo is the "_shards" of a write: one primary, replicas unassigned.
func (ix *index) shardInfo() *shardCounts {
	return &shardCounts{Total: 1 + ix.replicas(), Successful: 1}
}

// refresh makes every write since the last refresh searchable.
func (ix *index) refresh() {
	for id := range ix.pending {
		e := ix.docs[id]
		if e == nil {
			continue
		}
		e.visible = e.latest
	}
	clear(ix.pending)
}

func (ix *index) touch(id string) {
	ix.pending[id] = struct{}{}
}

// indexTemplate is a composable index template.
type indexTemplate struct {
	name     string
	patterns []string
	priority int64
	body     *jv // as received, for GET
	template *jv // the "template" section, may be nil
}

// validateIndexName applies OpenSearch's static rules for new index names.
func validateIndexName(name string) *apiError {
	if strings.ContainsAny(name, `\/*?"<>| ,`) {
		return errInvalidIndexName(name, `must not contain the following characters [ , ", *, \, <, |, ,, >, /, ?]`)
	}
	if strings.Contains(name, "#") {
		return errInvalidIndexName(name, "must not contain '#'")
	}
	if strings.Contains(name, ":") {
		return errInvalidIndexName(name, "must not contain ':'")
	}
	if name == "" || name[0] == '_' || name[0] == '-' || name[0] == '+' {
		return errInvalidIndexName(name, "must not start with '_', '-', or '+'")
	}
	if len(name) > 255 {
		return errInvalidIndexName(name, fmt.Sprintf("index name is too long, (%d > 255)", len(name)))
	}
	if name == "." || name == ".." {
		return errInvalidIndexName(name, "must not be '.' or '..'")
	}
	if strings.ToLower(name) != name {
		return errInvalidIndexName(name, "must be lowercase")
	}
	return nil
}

func (s *Server) newUUID() string {
	b := make([]byte, 16)
	s.randomBytes(b)
	return base64.RawURLEncoding.EncodeToString(b)[:22]
}

// autoID makes an id like OpenSearch's time-based ones: 20 URL-safe
// base64 characters.
func (s *Server) autoID() string {
	b := make([]byte, 15)
	s.randomBytes(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// createIndex creates an index with templates applied, then the request's
// own settings and mappings. Callers hold s.mu.
func (s *Server) createIndex(name string, body *jv) (*index, *apiError) {
	if err := validateIndexName(name); err != nil {
		return nil, err
	}
	if ix, ok := s.indices[name]; ok {
		return nil, newError(http.StatusBadRequest, "resource_already_exists_exception", "index [%s/%s] already exists", name, ix.uuid).
			with("index_uuid", ix.uuid).with("index", name)
	}
	ix := &index{
		name:     name,
		uuid:     s.newUUID(),
		settings: map[string]string{},
		mapping:  newMapping(),
		docs:     map[string]*docEntry{},
		pending:  map[string]struct{}{},
		seqNo:    -1,
	}
	if t := s.matchingTemplate(name); t != nil && t.template != nil {
		if err := flattenSettings(t.template.get("settings"), ix.settings); err != nil {
			return nil, err
		}
		if err := ix.mapping.apply(t.template.get("mappings")); err != nil {
			return nil, wrapMappingError(err)
		}
		ix.aliases = t.template.get("aliases")
	}
	if body != nil {
		if body.kind != jObject {
			return nil, newError(http.StatusBadRequest, "parse_exception", "Failed to derive xcontent")
		}
		for _, m := range body.obj {
			switch m.key {
			case "settings":
				if err := flattenSettings(m.val, ix.settings); err != nil {
					return nil, err
				}
			case "mappings":
				if err := ix.mapping.apply(m.val); err != nil {
					return nil, wrapMappingError(err)
				}
			case "aliases":
				ix.aliases = m.val
			default:
				return nil, newError(http.StatusBadRequest, "parse_exception", "unknown key [%s] for create index", m.key)
			}
		}
	}
	if v, ok := ix.settings["index.number_of_shards"]; ok {
		if n, err := strconv.Atoi(v); err != nil || n < 1 {
			return nil, errIllegalArgument("Failed to parse value [%s] for setting [index.number_of_shards] must be >= 1", v)
		}
	}
	if v, ok := ix.settings["index.max_result_window"]; ok {
		if n, err := strconv.Atoi(v); err != nil || n < 1 {
			return nil, errIllegalArgument("Failed to parse value [%s] for setting [index.max_result_window] must be >= 1", v)
		}
	}
	s.indices[name] = ix
	return ix, nil
}

// indexForWrite returns the named index, creating it as a write to a missing
// index does.
func (s *Server) indexForWrite(name string) (*index, *apiError) {
	if ix, ok := s.indices[name]; ok {
		return ix, nil
	}
	return s.createIndex(name, nil)
}

// flattenSettings turns {"index":{"number_of_shards":1}}, {"number_of_shards":"1"}
// and {"index.number_of_shards":1} alike into "index.number_of_shards" = "1".
func flattenSettings(v *jv, out map[string]string) *apiError {
	if v == nil || v.kind == jNull {
		return nil
	}
	if v.kind != jObject {
		return errIllegalArgument("malformed [settings] section, should include an inner object")
	}
	flat := map[string]string{}
	var walk func(prefix string, v *jv)
	walk = func(prefix string, v *jv) {
		switch v.kind {
		case jObject:
			for _, m := range v.obj {
				walk(joinPath(prefix, m.key), m.val)
			}
		case jArray:
			parts := make([]string, len(v.arr))
			for i, e := range v.arr {
				parts[i] = e.text()
			}
			flat[prefix] = strings.Join(parts, ",")
		case jNull:
			flat[prefix] = ""
		default:
			flat[prefix] = v.text()
		}
	}
	walk("", v)
	for k, val := range flat {
		if !strings.HasPrefix(k, "index.") {
			k = "index." + k
		}
		if val == "" {
			delete(out, k)
		} else {
			out[k] = val
		}
	}
	return nil
}

// nestSettings renders flattened settings the way GET shows them.
func nestSettings(flat map[string]string) map[string]any {
	root := map[string]any{}
	for k, v := range flat {
		parts := strings.Split(k, ".")
		node := root
		for _, p := range parts[:len(parts)-1] {
			next, ok := node[p].(map[string]any)
			if !ok {
				next = map[string]any{}
				node[p] = next
			}
			node = next
		}
		node[parts[len(parts)-1]] = v
	}
	return root
}

// matchingTemplate is the highest-priority template whose patterns match
// name. Callers hold s.mu.
func (s *Server) matchingTemplate(name string) *indexTemplate {
	var best *indexTemplate
	for _, n := range sortedKeys(s.templates) {
		t := s.templates[n]
		if !slices.ContainsFunc(t.patterns, func(p string) bool { return simpleMatch(p, name) }) {
			continue
		}
		if best == nil || t.priority > best.priority {
			best = t
		}
	}
	return best
}

// parseTemplate validates a PUT _index_template body as ComposableIndexTemplate's
// parser does.
func (s *Server) parseTemplate(name string, body *jv) (*indexTemplate, *apiError) {
	if body == nil {
		return nil, newError(http.StatusBadRequest, "parse_exception", "request body is required")
	}
	if body.kind != jObject {
		return nil, newError(http.StatusBadRequest, "x_content_parse_exception", "[%d:%d] [index_template] Expected START_OBJECT but was: %s", body.line, body.col, body.token())
	}
	t := &indexTemplate{name: name, body: body}
	seenPatterns := false
	for _, m := range body.obj {
		v := m.val
		switch m.key {
		case "index_patterns":
			seenPatterns = true
			for _, p := range listOf(v) {
				if p.kind != jString {
					return nil, newError(http.StatusBadRequest, "x_content_parse_exception", "[%d:%d] [index_template] failed to parse field [index_patterns]", p.line, p.col)
				}
				t.patterns = append(t.patterns, p.s)
			}
		case "template":
			if v.kind != jObject {
				return nil, newError(http.StatusBadRequest, "x_content_parse_exception", "[%d:%d] [index_template] template doesn't support values of type: %s", v.line, v.col, v.token())
			}
			for _, tm := range v.obj {
				switch tm.key {
				case "settings", "mappings", "aliases":
				default:
					return nil, newError(http.StatusBadRequest, "x_content_parse_exception", "[%d:%d] [template] unknown field [%s]", tm.line, tm.col, tm.key)
				}
			}
			t.template = v
		case "priority":
			n, err := strconv.ParseInt(v.text(), 10, 64)
			if err != nil || v.kind == jBool {
				return nil, newError(http.StatusBadRequest, "x_content_parse_exception", "[%d:%d] [index_template] failed to parse field [priority]", v.line, v.col)
			}
			t.priority = n
		case "composed_of":
			if names := listOf(v); len(names) > 0 {
				var missing []string
				for _, n := range names {
					missing = append(missing, n.text())
				}
				return nil, newError(http.StatusBadRequest, "invalid_index_template_exception",
					"index_template [%s] invalid, cause [index template [%s] specifies component templates [%s] that do not exist]", name, name, strings.Join(missing, ", "))
			}
		case "version", "_meta", "data_stream":
		default:
			return nil, newError(http.StatusBadRequest, "x_content_parse_exception", "[%d:%d] [index_template] unknown field [%s]", m.line, m.col, m.key)
		}
	}
	if !seenPatterns {
		return nil, errIllegalArgument("Required [index_patterns]")
	}
	if t.template != nil {
		if err := newMapping().apply(t.template.get("mappings")); err != nil {
			return nil, wrapMappingError(err)
		}
		if err := flattenSettings(t.template.get("settings"), map[string]string{}); err != nil {
			return nil, err
		}
	}
	// Two templates of equal priority may not match the same index.
	for _, other := range sortedKeys(s.templates) {
		o := s.templates[other]
		if other == name || o.priority != t.priority {
			continue
		}
		if patternsOverlap(t.patterns, o.patterns) {
			return nil, errIllegalArgument("index template [%s] has index patterns [%s] matching patterns from existing templates [%s] with patterns (%s => [%s]) that have the same priority [%d], multiple index templates may not match during index creation, please use a different priority",
				name, strings.Join(t.patterns, ", "), other, other, strings.Join(o.patterns, ", "), t.priority)
		}
	}
	return t, nil
}

// patternsOverlap approximates the automaton intersection OpenSearch runs:
// two '*' patterns can match a common name when their literal heads and
// tails are compatible.
func patternsOverlap(a, b []string) bool {
	for _, p := range a {
		for _, q := range b {
			if simpleMatch(p, q) || simpleMatch(q, p) {
				return true
			}
			if strings.Contains(p, "*") && strings.Contains(q, "*") {
				ph, pt := p[:strings.IndexByte(p, '*')], p[strings.LastIndexByte(p, '*')+1:]
				qh, qt := q[:strings.IndexByte(q, '*')], q[strings.LastIndexByte(q, '*')+1:]
				if (strings.HasPrefix(ph, qh) || strings.HasPrefix(qh, ph)) && (strings.HasSuffix(pt, qt) || strings.HasSuffix(qt, pt)) {
					return true
				}
			}
		}
	}
	return false
}

// renderTemplate is the index_template object GET returns.
func renderTemplate(t *indexTemplate) map[string]any {
	out := map[string]any{"index_patterns": t.patterns, "composed_of": []string{}}
	for _, m := range t.body.obj {
		switch m.key {
		case "priority", "version", "_meta", "data_stream":
			out[m.key] = m.val.goValue()
		}
	}
	if t.template != nil {
		tpl := map[string]any{}
		for _, m := range t.template.obj {
			switch m.key {
			case "settings":
				flat := map[string]string{}
				_ = flattenSettings(m.val, flat)
				tpl["settings"] = nestSettings(flat)
			case "mappings":
				mv := m.val
				if len(mv.obj) == 1 && mv.obj[0].key == "_doc" {
					mv = mv.obj[0].val
				}
				tpl["mappings"] = mv.goValue()
			default:
				tpl[m.key] = m.val.goValue()
			}
		}
		out["template"] = tpl
	}
	return out
}

// resolveIndices expands an index expression (comma list, wildcards,
// -exclusions, _all) to existing indices, sorted by name. Callers hold s.mu.
func (s *Server) resolveIndices(expr string, ignoreUnavailable bool) ([]*index, *apiError) {
	if expr == "" || expr == "_all" {
		expr = "*"
	}
	selected := map[string]bool{}
	sawWildcard := false
	for _, part := range strings.Split(expr, ",") {
		part = strings.TrimSpace(part)
		switch {
		case part == "":
			continue
		case strings.HasPrefix(part, "-") && sawWildcard:
			pat := part[1:]
			for n := range selected {
				if simpleMatch(pat, n) {
					delete(selected, n)
				}
			}
		case strings.Contains(part, "*"):
			sawWildcard = true
			for n := range s.indices {
				if simpleMatch(part, n) {
					selected[n] = true
				}
			}
		case part == "_all":
			for n := range s.indices {
				selected[n] = true
			}
		default:
			if _, ok := s.indices[part]; ok {
				selected[part] = true
			} else if !ignoreUnavailable {
				return nil, errIndexNotFound(part)
			}
		}
	}
	out := make([]*index, 0, len(selected))
	for _, n := range sortedKeys(selected) {
		out = append(out, s.indices[n])
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
