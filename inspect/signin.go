package inspect

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
)

// signinView is the sign-in page's data.
type signinView struct {
	Next, Error string
}

func (v signinView) PageTitle() string { return "Sign in" }

// next returns where to go after signing in: a path of this inspector, else
// its people page (never another site: no open redirect).
func (h *Handler) next(v string) string {
	if strings.HasPrefix(v, h.cfg.Base) && !strings.HasPrefix(v, "//") && !strings.ContainsAny(v, "\\\r\n") {
		return v
	}
	return h.cfg.Base
}

func (h *Handler) signinPage(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusOK, "signin", signinView{Next: h.next(r.URL.Query().Get("next"))})
}

// signin checks the token and keeps its proof in a cookie that scripts
// cannot read and other sites do not send.
func (h *Handler) signin(w http.ResponseWriter, r *http.Request) {
	next := h.next(r.PostFormValue("next"))
	if h.cfg.Token == "" {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	got, want := sha256.Sum256([]byte(strings.TrimSpace(r.PostFormValue("token")))), sha256.Sum256([]byte(h.cfg.Token))
	if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
		h.render(w, r, http.StatusUnauthorized, "signin", signinView{Next: next, Error: "That is not the token."})
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: h.proof, Path: h.cfg.Base, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	http.Redirect(w, r, next, http.StatusSeeOther)
}

func (h *Handler) signout(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: h.cfg.Base, MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, h.cfg.Base+"signin", http.StatusSeeOther)
}
