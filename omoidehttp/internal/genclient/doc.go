// Package genclient is a Go client of omoide's HTTP API generated from
// docs/openapi.json by oapi-codegen (the tool go.mod names), as a user of
// the API would make one: tests drive a live server through it, so that the
// description and the server cannot part. Do not edit genclient.gen.go; run
// go generate here after the description changes.
package genclient

//go:generate go tool oapi-codegen -config config.yaml ../../../docs/openapi.json
