package doorman_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// The README's Go code is code the suite compiles: its first integration is
// examples/firstintegration/main.go whole (which the integration test builds and runs), and every
// other Go block is a part of example_test.go.
func TestTheReadmeShowsOnlyCompiledCode(t *testing.T) {
	readme := read(t, "README.md")
	example := read(t, "examples/firstintegration/main.go")
	examples := read(t, "example_test.go")
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(readme, -1)
	if len(blocks) < 2 {
		t.Fatalf("the README has %d Go blocks", len(blocks))
	}
	if blocks[0][1] != example {
		t.Fatal("the README's first Go block is not examples/firstintegration/main.go as it is")
	}
	for _, block := range blocks[1:] {
		if !strings.Contains(examples, block[1]) {
			t.Errorf("a README block is not in example_test.go:\n%s", block[1])
		}
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
