package cli

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// IDs is a repeatable flag of episode ids; a value may also hold several,
// comma-separated.
type IDs []int64

func (l *IDs) String() string {
	s := make([]string, len(*l))
	for i, v := range *l {
		s[i] = strconv.FormatInt(v, 10)
	}
	return strings.Join(s, ",")
}

// Set adds the ids of v.
func (l *IDs) Set(v string) error {
	for _, part := range strings.Split(v, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(part), 10, 64)
		if err != nil || n <= 0 {
			return fmt.Errorf("%q is not an episode id (a positive integer)", part)
		}
		*l = append(*l, n)
	}
	return nil
}

// ByteSize is a flag holding a number of bytes: 4194304, 4MiB, 512KiB, 4M, 1G.
type ByteSize int64

func (b *ByteSize) String() string {
	switch n := int64(*b); {
	case n > 0 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "MiB"
	case n > 0 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + "KiB"
	default:
		return strconv.FormatInt(n, 10)
	}
}

// Set reads a positive size with an optional binary unit.
func (b *ByteSize) Set(v string) error {
	s := strings.TrimSpace(v)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10},
		{"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}} {
		if strings.HasSuffix(strings.ToUpper(s), strings.ToUpper(u.suffix)) {
			s, mult = strings.TrimSpace(s[:len(s)-len(u.suffix)]), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return fmt.Errorf("%q is not a positive size (e.g. 4MiB, 512KiB, 1048576)", v)
	}
	*b = ByteSize(n * mult)
	return nil
}

// ReadLines reads the non-blank lines of the file name ("-": stdin).
func ReadLines(name string, stdin io.Reader) ([]string, error) {
	var b []byte
	var err error
	if name == "-" {
		b, err = io.ReadAll(stdin)
	} else {
		b, err = os.ReadFile(name)
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimRight(l, "\r"); strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out, nil
}

// ParseList reads a comma-separated list of names with parse; blank is none.
func ParseList[T any](s string, parse func(string) (T, error)) ([]T, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []T
	for _, f := range strings.Split(s, ",") {
		v, err := parse(f)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}
