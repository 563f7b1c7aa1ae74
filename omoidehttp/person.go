package omoidehttp

import "net/http"

// HandlePerson mounts at pattern a handler made, request by request, for the
// person the request names in the UserHeader (in its wire form, EncodeUser),
// under the API's rules: the token, a missing or malformed name refused
// (400), a person another node owns answered 421, a person held for a move
// 503, and the log line naming the person by PersonHash only. omoide serve
// mounts the MCP tools (package omoidemcp) at /mcp with it. Call it before
// the handler serves.
func (s *Handler) HandlePerson(pattern string, h func(user string) http.Handler) {
	s.mux.Handle(pattern, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, ok, err := routedUser(r)
		if err == nil && !ok {
			err = badRequest("the %s header is missing: name the person whose memory this is (the name's UTF-8 bytes percent-encoded, as %s)", UserHeader, EncodeUser("はるか"))
		}
		if err == nil {
			named(r, user)
			err = s.owns(user)
		}
		if err == nil {
			err = s.holds.check(w, r, user)
		}
		if err != nil {
			s.fail(w, r, err)
			return
		}
		h(user).ServeHTTP(w, r)
	}))
}
