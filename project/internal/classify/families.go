package classify

// Family groups evidence by what it tells the agent.
type Family uint8

const (
	FamNone    Family = iota
	FamPanic          // panics, tracebacks, fatal errors, crashes
	FamCompile        // compiler, linker and vet diagnostics at file:line
	FamTest           // failed tests and their messages
	FamError          // other error lines (npm ERR!, make: ***, Error: ...)
	FamSummary        // final summaries (FAIL pkg, N failed, Tests: ...)
	FamWarning        // warnings
	FamFrame          // stack frames
	FamNote           // compilers' notes and remarks (can inline, remark:, missed:)
	NumFamilies
)

// FamilyNames name the families in views, in the order of the constants.
var FamilyNames = [NumFamilies]string{"", "panic", "compiler error", "test failure", "error", "summary", "warning", "stack frame", "compiler note"}

// FamilyGrep holds a short RE2 pattern per family that finds most of
// its lines again, for the search a view offers when it cannot show them
// all.
var FamilyGrep = [NumFamilies]string{
	"",
	`panic|Traceback|fatal|Exception`,
	`error|:[0-9]+:[0-9]+: `,
	`FAIL|✕|✖|●|^E |not ok`,
	`(?i:error)`,
	`FAIL|failed`,
	`(?i:warn)`,
	`^\s+at |File "`,
	`: (remark|optimized|missed|can inline|inlining call)`,
}

// ClassifyBytes is how many bytes of a line the matchers look at.
const ClassifyBytes = 1024

func IsDigit(c byte) bool { return '0' <= c && c <= '9' }

// Indent returns the length of b's leading spaces and tabs.
func Indent(b []byte) int {
	for k, c := range b {
		if c != ' ' && c != '\t' {
			return k
		}
	}
	return len(b)
}
