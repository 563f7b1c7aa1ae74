package smalltalk_test

import (
	"fmt"

	"github.com/omoide/omoide/smalltalk"
)

// Greetings, thanks and aizuchi need no memory unless they carry a memory cue.
func ExampleNeedsMemory() {
	for _, text := range []string{"おはよう！", "うん、そうだね", "thanks!", "ありがとう、前に話した本読んだよ", "ok, remember the cafe?", "明日は雨かな"} {
		fmt.Printf("%s: %v\n", text, smalltalk.NeedsMemory(text))
	}
	// Output:
	// おはよう！: false
	// うん、そうだね: false
	// thanks!: false
	// ありがとう、前に話した本読んだよ: true
	// ok, remember the cafe?: true
	// 明日は雨かな: true
}
