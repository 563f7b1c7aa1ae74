package hosts

import (
	"slices"
	"testing"
)

func TestAllowed(t *testing.T) {
	extra := []string{"192.168.1.5", "omoide.lan:8765"}
	for _, tc := range []struct {
		host string
		want bool
	}{
		{"127.0.0.1:8765", true},
		{"127.0.0.1", true},
		{"127.1.2.3:80", true},
		{"localhost:8765", true},
		{"LocalHost:8765", true},
		{"localhost.:8765", true},
		{"app.localhost:8765", true},
		{"[::1]:8765", true},
		{"[::ffff:127.0.0.1]:8765", true},
		{"192.168.1.5:8765", true},
		{"omoide.lan:8765", true},
		{"OMOIDE.LAN:8765", true},
		{"omoide.lan:9999", false}, // the port named is another
		{"evil.example:8765", false},
		{"127.0.0.1.evil.example:8765", false},
		{"localhost.evil.example", false},
		{"evillocalhost:8765", false},
		{"10.0.0.1:8765", false},
		{"[::]:8765", false},
		{"0.0.0.0:8765", false},
		{"", false},
	} {
		if got := Allowed(tc.host, extra); got != tc.want {
			t.Errorf("Allowed(%q) = %v, want %v", tc.host, got, tc.want)
		}
	}
	if Allowed("192.168.1.5:8765", nil) {
		t.Error("an address not named is allowed")
	}
}

func TestOf(t *testing.T) {
	for addr, want := range map[string][]string{
		"192.168.1.5:8765": {"192.168.1.5"}, "omoide.lan:8765": {"omoide.lan"}, "[fe80::1]:8765": {"fe80::1"},
		"0.0.0.0:8765": nil, ":8765": nil, "[::]:8765": nil, "127.0.0.1:8765": nil, "localhost:8765": nil, "bad": nil,
	} {
		if got := Of(addr); !slices.Equal(got, want) {
			t.Errorf("Of(%q) = %q, want %q", addr, got, want)
		}
	}
}
