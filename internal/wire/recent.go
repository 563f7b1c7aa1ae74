package wire

import (
	"fmt"

	"github.com/omoide/omoide/retriever"
)

// Message is one recent turn: {"role": "user"|"assistant", "content": "..."}.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Messages validates ms and converts them; a nil ms stays nil (the
// retriever then uses the person's last stored episodes as the context).
func Messages(ms []Message) ([]retriever.Message, error) {
	if ms == nil {
		return nil, nil
	}
	out := make([]retriever.Message, len(ms))
	for i, m := range ms {
		switch m.Role {
		case "user", "assistant", "system": // the retriever ignores system messages
		default:
			return nil, fmt.Errorf("recent[%d]: role %q: want \"user\" or \"assistant\"", i, m.Role)
		}
		out[i] = retriever.Message{Role: m.Role, Content: m.Content}
	}
	return out, nil
}
