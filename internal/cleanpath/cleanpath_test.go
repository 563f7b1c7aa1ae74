package cleanpath

import "testing"

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		path       string
		allowSlash bool
		ok         bool
	}{
		{"/", false, true}, {"*", false, true}, {"/v1/users/yui", false, true}, {"/v1/users/%E3%81%AF", false, true},
		{"/v1/users/yui/", false, false}, {"/ui/", true, true}, {"/ui//", true, false}, {"//v1/users", false, false},
		{"/v1//users", false, false}, {"/v1/users/..", false, false}, {"/v1/./users", false, false},
		{"/v1/users/%2e%2E", false, false}, {"/v1/users/.%2e", false, false}, {"/v1/users/...", false, true}, {"/v1/users/a.b", false, true},
	} {
		if err := Check(c.path, c.allowSlash); (err == nil) != c.ok {
			t.Errorf("Check(%q, %v) = %v, want ok %v", c.path, c.allowSlash, err, c.ok)
		}
	}
}
