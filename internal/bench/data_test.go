package bench

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-gpu/arbor/internal/dataset"
)

// TestManifestCurrent: data.sha256 parses, covers every suite's sets, and
// agrees with the data folder where there is one: every file both name has
// the manifest's checksum, and a folder holding every manifest file holds
// no other data file (else go generate must be run again).
func TestManifestCurrent(t *testing.T) {
	m := DefaultManifest()
	for _, name := range suiteList() {
		sets, err := SuiteSets(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sets {
			if len(m[s.Dir]) == 0 {
				t.Errorf("suite %s: data set %s has no files in data.sha256", name, s.Dir)
			}
		}
	}
	dir := dataset.Require(t, "")
	want := map[string]string{}
	for _, files := range m {
		for _, f := range files {
			want[f.Path] = f.SHA256
		}
	}
	var extra []string
	found := 0
	for _, set := range DataSets {
		filepath.WalkDir(filepath.Join(dir, set.Dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() || strings.EqualFold(d.Name(), "README.md") {
				return nil
			}
			rel, _ := filepath.Rel(dir, p)
			rel = filepath.ToSlash(rel)
			sum, ok := want[rel]
			if !ok {
				extra = append(extra, rel)
				return nil
			}
			found++
			if got, err := FileSHA256(p); err != nil || got != sum {
				t.Errorf("%s: SHA-256 %s, data.sha256 says %s (%v): run go generate ./internal/bench", rel, got, sum, err)
			}
			return nil
		})
	}
	if found == len(want) && len(extra) > 0 {
		t.Errorf("%d data files are not in data.sha256 (first %s): run go generate ./internal/bench", len(extra), extra[0])
	}
	t.Logf("%d of %d manifest files checked in %s", found, len(want), dir)
}

// TestFetchMirror: Fetch copies a suite's files from a mirror folder in
// another layout, checking each, leaves the right ones in place, replaces
// a damaged one, and names what it could not find with its source.
func TestFetchMirror(t *testing.T) {
	mirror, dest := t.TempDir(), filepath.Join(t.TempDir(), "cache")
	files := map[string]string{
		"vc/toy/a.gr":       "p td 2 1\n1 2\n",
		"vc/toy/optima.csv": "file,min_vc\na.gr,1\n",
		"vc/other/b.gr":     "p td 3 1\n1 2\n",
	}
	var text strings.Builder
	for rel, body := range files {
		sum := sha256.Sum256([]byte(body))
		text.WriteString(hex.EncodeToString(sum[:]) + "  " + rel + "\n")
		// The mirror keeps its own layout: a download's folder names.
		p := filepath.Join(mirror, "download-main", "instances", filepath.Base(rel))
		if strings.Contains(rel, "other") {
			continue // b.gr is nowhere to be found
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sets := []DataSet{{"vc/toy", "https://example.org/toy"}, {"vc/other", "https://example.org/other"}}
	m, err := ParseManifest(text.String(), sets)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Fetch(m, sets[:1], mirror, dest)
	if err != nil || res.Placed != 2 || res.Present != 0 || len(res.Missing) != 0 {
		t.Fatalf("first fetch: %+v %v", res, err)
	}
	for _, rel := range []string{"vc/toy/a.gr", "vc/toy/optima.csv"} {
		if b, err := os.ReadFile(filepath.Join(dest, rel)); err != nil || string(b) != files[rel] {
			t.Errorf("%s in the cache: %q %v", rel, b, err)
		}
	}
	// Damaged in the cache: replaced; the right one stays.
	if err := os.WriteFile(filepath.Join(dest, "vc/toy/a.gr"), []byte("p td 2 1\n1 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if res, err = Fetch(m, sets[:1], mirror, dest); err != nil || res.Placed != 1 || res.Present != 1 {
		t.Fatalf("after damage: %+v %v", res, err)
	}
	// A damaged source is no source.
	if err := os.WriteFile(filepath.Join(mirror, "download-main", "instances", "a.gr"), []byte("junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dest, "vc/toy/a.gr"))
	if res, err = Fetch(m, sets[:1], mirror, dest); err != nil || len(res.Missing) != 1 || res.Missing[0].Path != "vc/toy/a.gr" {
		t.Fatalf("damaged source: %+v %v", res, err)
	}
	// Nothing to fetch from: the message names the source and the place.
	res, err = Fetch(m, sets, "", dest)
	if err != nil || len(res.Missing) != 2 {
		t.Fatalf("no source: %+v %v", res, err)
	}
	msg := MissingMessage("vc-toy", sets, res.Missing, dest)
	for _, want := range []string{"https://example.org/toy", "https://example.org/other", dest, "arbor bench fetch vc-toy --from DIR"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	left, _ := filepath.Glob(filepath.Join(dest, "vc/toy", ".*tmp*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	if _, err := ParseManifest("abc  vc/toy/a.gr\n", sets); err == nil {
		t.Error("a short checksum accepted")
	}
	if _, err := ParseManifest(strings.Repeat("0", 64)+"  elsewhere/x\n", sets); err == nil {
		t.Error("a file in no set accepted")
	}
}
