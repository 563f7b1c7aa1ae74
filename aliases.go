package omoide

import (
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/retriever"
)

// The types a program that stores and retrieves needs, under this package's
// name, so that one import serves it; each is the type of the package that
// owns it.
type (
	Episode     = episode.Episode     // one exchange, as Add and Update store it
	Sensitivity = episode.Sensitivity // how private an episode is
	Request     = retriever.Request   // one retrieval: the person, their new message, the recent turns
	Message     = retriever.Message   // one recent turn of a Request
	Filter      = retriever.Filter    // which episodes a retrieval searches (Request.Filter)
	Result      = retriever.Result    // what a retrieval found, with its trace
	Hit         = retriever.Hit       // one retrieved episode with its score parts
)

// The sensitivity levels of an episode (episode.Sensitivity).
const (
	SensitivityNormal  = episode.SensitivityNormal
	SensitivityPrivate = episode.SensitivityPrivate
	SensitivitySecret  = episode.SensitivitySecret
)
