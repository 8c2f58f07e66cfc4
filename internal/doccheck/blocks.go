package doccheck

import (
	"fmt"
	"regexp"
	"strings"
)

// Block is a marked example: a fenced block whose body is checked against
// the output of commands.
type Block struct {
	Line    int    // 1-based line of the marker comment
	Command string // the command whose output the body is; "" for a session
	Body    string // the text between the fences, each line ending in "\n"
	start   int    // byte offsets of Body in the file
	end     int
}

// Step is one command of a block and the output written under it.
type Step struct {
	Command string
	Output  string
}

// markerRE matches a marker comment: "<!-- doccheck -->" for a session or
// "<!-- doccheck: COMMAND -->" for one command's output.
var markerRE = regexp.MustCompile(`^\s*<!--\s*doccheck(?::\s*(.*?))?\s*-->\s*$`)

// fenceRE matches an opening or closing code fence and its indentation.
var fenceRE = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")

// Find returns the marked examples of a Markdown file, in order. A marker
// that is not followed by a fenced block on the next line is an error, so
// a check cannot silently go missing.
func Find(md string) ([]Block, error) {
	lines := strings.SplitAfter(md, "\n")
	var out []Block
	offset := 0
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		m := markerRE.FindStringSubmatch(strings.TrimRight(line, "\n"))
		offset += len(line)
		if m == nil {
			continue
		}
		if i+1 >= len(lines) || fenceRE.FindString(lines[i+1]) == "" {
			return nil, fmt.Errorf("line %d: a doccheck marker must be followed by a fenced code block", i+1)
		}
		fence := fenceRE.FindStringSubmatch(lines[i+1])[1]
		b := Block{Line: i + 1, Command: m[1], start: offset + len(lines[i+1])}
		j := i + 2
		pos := b.start
		for ; j < len(lines); j++ {
			if f := fenceRE.FindStringSubmatch(lines[j]); f != nil && f[1][0] == fence[0] && len(f[1]) >= len(fence) &&
				strings.TrimSpace(lines[j][len(f[0]):]) == "" {
				break
			}
			pos += len(lines[j])
		}
		if j == len(lines) {
			return nil, fmt.Errorf("line %d: the code block after the doccheck marker is never closed", i+2)
		}
		b.end = pos
		b.Body = md[b.start:b.end]
		out = append(out, b)
		for k := i + 1; k <= j; k++ {
			offset += len(lines[k])
		}
		i = j
	}
	return out, nil
}

// Steps splits the block into its commands and their expected outputs.
func (b Block) Steps() ([]Step, error) {
	if b.Command != "" {
		return []Step{{Command: b.Command, Output: b.Body}}, nil
	}
	var steps []Step
	lines := strings.SplitAfter(b.Body, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if line == "" {
			continue
		}
		if !strings.HasPrefix(line, "$ ") {
			if len(steps) == 0 {
				return nil, fmt.Errorf("line %d: a session block starts with a \"$ \" command line", b.Line+2)
			}
			steps[len(steps)-1].Output += line
			continue
		}
		cmd := strings.TrimSuffix(strings.TrimPrefix(line, "$ "), "\n")
		for strings.HasSuffix(cmd, "\\") && i+1 < len(lines) { // a command continued on the next line
			i++
			cmd += "\n" + strings.TrimSuffix(lines[i], "\n")
		}
		steps = append(steps, Step{Command: cmd})
	}
	if len(steps) == 0 {
		return nil, fmt.Errorf("line %d: a session block without a \"$ \" command line", b.Line+2)
	}
	return steps, nil
}

// Render writes steps back as a block's body: the output alone for a
// one-command block, "$ command" lines and their outputs for a session.
func (b Block) Render(steps []Step) string {
	if b.Command != "" {
		return ensureNewline(steps[0].Output)
	}
	var s strings.Builder
	for _, st := range steps {
		s.WriteString("$ " + st.Command + "\n")
		s.WriteString(ensureNewline(st.Output))
	}
	return s.String()
}

func ensureNewline(s string) string {
	if s != "" && !strings.HasSuffix(s, "\n") {
		return s + "\n"
	}
	return s
}

// Replace returns md with the bodies of the given blocks (found in md by
// Find) replaced by bodies[i].
func Replace(md string, blocks []Block, bodies []string) string {
	var s strings.Builder
	last := 0
	for i, b := range blocks {
		s.WriteString(md[last:b.start])
		s.WriteString(bodies[i])
		last = b.end
	}
	s.WriteString(md[last:])
	return s.String()
}
