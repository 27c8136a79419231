package ndjson

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acfcd/acfcd/internal/testkit"
	"github.com/acfcd/acfcd/io/internal/csr"
)

// Small real and broken inputs with the message each gets (empty: valid).
// TestInputMessages checks the messages; TestFuzzSeeds keeps them as
// the seed corpus of FuzzNDJSON.
var ndjsonInputs = []struct{ name, text, want string }{
	{"valid", `{"label": 1, "features": {"3": 0.5, "17": 1}}` + "\n" + `{"label": -1}` + "\n", ""},
	{"valid-qid-unordered", `{"features": {"17": 2.5e-3, "4": -1}, "qid": 7, "label": -1}` + "\n", ""},
	{"crlf-blank-lines", "{\"label\":1}\r\n\r\n  \n{\"label\":2,\"features\":{\"1\":1}}\r\n", ""},
	{"no-final-newline", `{"label":1}` + "\n" + `{"label":0,"features":{"2":3}}`, ""},
	{"bom", "\ufeff{\"label\":1}\n", ""},
	{"huge-labels", `{"label":1e308}` + "\n" + `{"label":-1.7976931348623157e308}` + "\n", ""},
	{"idx-2147483647", `{"label":1,"features":{"2147483647":1}}` + "\n", ""},
	{"escaped-key", `{"l\u0061bel":1,"features":{"\u0031":2}}` + "\n", ""},
	{"idx-0", `{"label":1,"features":{"0":1}}`, "f:1:24: feature index 0 is not allowed: indices start at 1 (Options.ZeroBased reads 0-based files)"},
	{"idx-negative", `{"label":1,"features":{"-3":1}}`, `f:1:24: feature key "-3" is not a feature number (decimal digits)`},
	{"idx-duplicate", `{"label":1,"features":{"2":1,"2":1}}`, "f:1:30: duplicate feature 2"},
	{"idx-duplicate-after-sort", `{"label":1,"features":{"02":1,"1":1,"2":1}}`, "f:1: duplicate feature 2"},
	{"idx-2147483648", `{"label":1,"features":{"2147483648":1}}`, `f:1:24: feature index 2147483648 is too large (at most 2147483647 features are supported)`},
	{"value-nan", `{"label":1,"features":{"1":NaN}}`, `f:1:28: the value of feature 1 must be a number, found "NaN"`},
	{"value-infinity", `{"label":1,"features":{"1":-Infinity}}`, `f:1:28: the value of feature 1 must be a number, found "-Infinity"`},
	{"value-overflow", `{"label":1,"features":{"1":1e400}}`, `f:1:28: value "1e400" for feature 1 is not a finite number`},
	{"value-string", `{"label":1,"features":{"1":"2"}}`, `f:1:28: the value of feature 1 must be a number, found '"'`},
	{"label-overflow", `{"label":-1e400}`, `f:1:10: label "-1e400" is not a finite number`},
	{"label-string", `{"label":"1"}`, `f:1:10: "label" must be a number, found '"'`},
	{"label-missing", `{"features":{"1":1}}`, `f:1:1: missing "label"`},
	{"unknown-key", `{"label":1,"weight":2}`, `f:1:12: unknown key "weight" (an example has only "label", "features" and "qid")`},
	{"qid-float", `{"label":1,"qid":1.5}`, `f:1:18: qid "1.5" is not an integer`},
	{"truncated-line", `{"label":1}` + "\n" + `{"label":1,"features":{"1":`, `f:2:28: the value of feature 1 must be a number, found end of input`},
	{"split-object", "{\"label\":1,\n\"features\":{}}\n", `f:1:12: expected a key in double quotes, found end of line (an example must be on one line)`},
	{"two-objects-one-line", `{"label":1} {"label":2}`, `f:1:13: unexpected '{' after the example's closing '}' (one JSON object per line)`},
	{"array", `[1,2]`, `f:1:1: an example must be a JSON object, not an array`},
	{"binary-garbage", "{\"label\":1}\n\x00\x01\x02\xff\n", `f:2:1: expected '{' to start an example (one JSON object per line), found byte 0x00`},
	{"leading-zero", `{"label":01}`, `f:1:10: invalid number "01" (leading zero)`},
	{"bad-escape", `{"label":1,"features":{"\u 031":1}}`, `f:1:25: invalid \u escape in a string`},
	{"only-blank", "\n \r\n\t\n", "f: no examples, only blank lines: no data"},
}

func TestInputMessages(t *testing.T) {
	for _, in := range ndjsonInputs {
		for _, p := range ndPaths(t) {
			_, err := ndParse(p, in.text, csr.Options{})
			if err != nil {
				err = fmt.Errorf("%s", strings.Replace(err.Error(), "t.ndjson", "f", 1))
			}
			if got := fmt.Sprint(err); (err == nil) != (in.want == "") || (err != nil && got != in.want) {
				t.Errorf("ndjson %s (%s):\n got  %v\n want %s", in.name, ndPathNames[p], err, in.want)
			}
		}
	}
}

var updateSeeds = flag.Bool("update-seeds", false, "rewrite testdata/fuzz/FuzzNDJSON from the inputs")

// TestFuzzSeeds: testdata/fuzz/FuzzNDJSON holds a seed for each of the
// inputs above (-update-seeds writes them), so that plain `go test` runs
// every one through FuzzNDJSON.
func TestFuzzSeeds(t *testing.T) {
	seeds := map[string]string{}
	for i, in := range ndjsonInputs {
		seeds[in.name] = fmt.Sprintf("go test fuzz v1\nstring(%q)\nbyte(%q)\n", in.text, byte(i%2*0x13))
	}
	testkit.Seeds(t, filepath.Join("testdata", "fuzz", "FuzzNDJSON"), seeds, *updateSeeds)
}
