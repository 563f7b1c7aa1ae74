// Package cleanpath holds the one rule of a path the servers take as sent:
// no empty segment and no dot segment. http.ServeMux answers such a path
// with a redirect to its cleaned form, which clients follow with the same
// method: DELETE /v1/users/kenji/episodes/.. became DELETE /v1/users/kenji,
// a forget. Every omoide handler refuses such a path instead.
package cleanpath

import (
	"fmt"
	"strings"

	"github.com/omoide/omoide/episode"
)

// Check returns an error naming p, an escaped URL path
// (url.URL.EscapedPath), when it is not in its one form: an empty segment
// ("//", a trailing "/") or a dot segment ("." or "..", with a dot written
// %2e too). The root "/" and a path not starting with "/" ("*" of OPTIONS)
// pass: ServeMux answers them without a redirect. A path that ends in "/"
// where a handler's own prefix does (the inspector's "/ui/") is the
// caller's to allow, with allowSlash.
func Check(p string, allowSlash bool) error {
	if p == "/" || !strings.HasPrefix(p, "/") {
		return nil
	}
	segs := strings.Split(p[1:], "/")
	for i, seg := range segs {
		switch {
		case seg == "" && i == 0:
			return fmt.Errorf("the path %q begins with an empty segment (\"//\"): send each segment once, with nothing empty between slashes", p)
		case seg == "" && i == len(segs)-1 && allowSlash:
		case seg == "":
			return fmt.Errorf("the path %q has an empty segment (\"//\" or a trailing \"/\"): send it without; no endpoint ends with \"/\"", p)
		case episode.IsDotSegment(seg):
			return fmt.Errorf("the path %q has the dot segment %q, which clients resolve into another path: it names no endpoint and no episode", p, seg)
		}
	}
	return nil
}
