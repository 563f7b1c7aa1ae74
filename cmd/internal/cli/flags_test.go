package cli

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

func TestByteSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64 // 0: an error
		text string
	}{
		{"1048576", 1 << 20, "1MiB"}, {"4MiB", 4 << 20, "4MiB"}, {"512 KiB", 512 << 10, "512KiB"}, {"4m", 4 << 20, "4MiB"},
		{"1G", 1 << 30, "1024MiB"}, {"1000", 1000, "1000"}, {"0", 0, ""}, {"-1K", 0, ""}, {"lots", 0, ""}, {"9999999999G", 0, ""},
	} {
		var b ByteSize
		err := b.Set(tc.in)
		if int64(b) != tc.want || (err != nil) != (tc.want == 0) {
			t.Errorf("Set(%q) = %d, %v; want %d", tc.in, b, err, tc.want)
		}
		if tc.want != 0 && b.String() != tc.text {
			t.Errorf("Set(%q).String() = %q, want %q", tc.in, b.String(), tc.text)
		}
	}
}

func TestIDs(t *testing.T) {
	var l IDs
	for _, v := range []string{"3", "1, 2"} {
		if err := l.Set(v); err != nil {
			t.Fatal(err)
		}
	}
	if l.String() != "3,1,2" {
		t.Errorf("ids %s, want 3,1,2", l.String())
	}
	for _, bad := range []string{"0", "x", "1,,2", "-4"} {
		if err := (&IDs{}).Set(bad); err == nil || !strings.Contains(err.Error(), "not an episode id") {
			t.Errorf("Set(%q): %v, want an error", bad, err)
		}
	}
}

func TestReadLines(t *testing.T) {
	got, err := ReadLines("-", strings.NewReader("haruka\r\n\n  \nkenta\n"))
	if err != nil || strings.Join(got, "|") != "haruka|kenta" {
		t.Errorf("ReadLines = %q, %v", got, err)
	}
	if _, err := ReadLines("/nonexistent/users", nil); err == nil {
		t.Error("a missing file: no error")
	}
}

func TestHumanBytes(t *testing.T) {
	for n, want := range map[int64]string{512: "512 B", 1536: "1.5 KiB", 3 << 20: "3.0 MiB", 5 << 30: "5.0 GiB"} {
		if got := HumanBytes(n); got != want {
			t.Errorf("HumanBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestParseList(t *testing.T) {
	atoi := func(s string) (int, error) { return strconv.Atoi(strings.TrimSpace(s)) }
	if got, err := ParseList(" 1, 2,3", atoi); err != nil || fmt.Sprint(got) != "[1 2 3]" {
		t.Errorf("ParseList = %v, %v", got, err)
	}
	if got, err := ParseList("  ", atoi); got != nil || err != nil {
		t.Errorf("blank: %v, %v; want none", got, err)
	}
	if _, err := ParseList("1,x", atoi); err == nil {
		t.Error("a bad name: no error")
	}
}
