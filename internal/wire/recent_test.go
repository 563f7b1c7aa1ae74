package wire

import (
	"strings"
	"testing"
)

// TestMessagesRoles: the roles a recent turn is accepted with are the roles
// its error lists, lower case as chat APIs spell them.
func TestMessagesRoles(t *testing.T) {
	const valid = `want "user", "assistant" or "system"`
	for _, tc := range []struct {
		role string
		want string // "" = accepted; else in the error
	}{
		{"user", ""},
		{"assistant", ""},
		{"system", ""}, // a chat history's first turn: the retriever leaves it out or labels it
		{"User", `recent[1]: role "User": ` + valid + " (roles are lower case)"},
		{"SYSTEM", `role "SYSTEM": ` + valid + " (roles are lower case)"},
		{"persona", `role "persona": ` + valid},
		{"", `role "": ` + valid},
		{" user", `role " user": ` + valid},
	} {
		ms := []Message{{Role: "user", Content: "a"}, {Role: tc.role, Content: "b"}}
		got, err := Messages(ms)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("role %q: %v", tc.role, err)
		case tc.want == "" && (len(got) != 2 || got[1].Role != tc.role || got[1].Content != "b"):
			t.Errorf("role %q: converted to %+v", tc.role, got)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("role %q: %v, want an error with %q", tc.role, err, tc.want)
		}
		// Every role the error lists is accepted.
		if err != nil {
			for _, r := range []string{"user", "assistant", "system"} {
				if !strings.Contains(err.Error(), `"`+r+`"`) {
					t.Errorf("role %q: %v does not list %q", tc.role, err, r)
				}
				if _, err := Messages([]Message{{Role: r}}); err != nil {
					t.Errorf("role %q, which the error lists: %v", r, err)
				}
			}
		}
	}
	if got, err := Messages(nil); got != nil || err != nil {
		t.Errorf("nil: %v, %v; want nil, nil", got, err)
	}
}
