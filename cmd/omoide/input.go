package main

import (
	"github.com/omoide/omoide/episode"
)

// checkEpisode validates e as the store will, without changing it.
func checkEpisode(e episode.Episode) error {
	return e.Normalize() // e is a copy: the defaults it fills stay here
}
