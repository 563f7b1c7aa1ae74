package wire

import (
	"fmt"
	"slices"
	"strings"

	"github.com/omoide/omoide/retriever"
)

// Message is one recent turn: {"role": "user"|"assistant"|"system",
// "content": "..."}.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// roles are the roles a recent turn may have, as chat APIs spell them (lower
// case). A chat history commonly opens with a system turn: the retriever
// leaves it out of the context, or labels it by its role where
// retriever.Context.OtherRoles says so (the reference preset).
var roles = []string{"user", "assistant", "system"}

// Messages validates ms and converts them; a nil ms stays nil (the
// retriever then uses the person's last stored episodes as the context). A
// role that is none of roles is an error naming it and them; "User" too,
// since roles are lower case, as in every chat API.
func Messages(ms []Message) ([]retriever.Message, error) {
	if ms == nil {
		return nil, nil
	}
	out := make([]retriever.Message, len(ms))
	for i, m := range ms {
		if !slices.Contains(roles, m.Role) {
			hint := ""
			if slices.Contains(roles, strings.ToLower(m.Role)) {
				hint = " (roles are lower case)"
			}
			return nil, fmt.Errorf("recent[%d]: role %q: want \"user\", \"assistant\" or \"system\"%s", i, m.Role, hint)
		}
		out[i] = retriever.Message{Role: m.Role, Content: m.Content}
	}
	return out, nil
}
