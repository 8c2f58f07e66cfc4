package doccheck

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"unicode"
)

// Problem is a broken link: where it is and what is wrong.
type Problem struct {
	File string
	Line int
	Msg  string
}

func (p Problem) String() string { return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Msg) }

// link is a link target found in a Markdown file.
type link struct {
	line   int
	target string
}

var (
	// inlineRE matches [text](target) and ![alt](target), with an optional
	// title; the target has no spaces or parentheses.
	inlineRE = regexp.MustCompile(`!?\[[^\]]*\]\(<?([^()\s>]+)>?(?:\s+"[^"]*")?\)`)
	// refDefRE matches a reference definition, [label]: target.
	refDefRE = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(\s|$)`)
	// htmlRE matches the targets of HTML links and images.
	htmlRE = regexp.MustCompile(`<(?:a|img)\s[^>]*?\b(?:href|src)="([^"]+)"`)
	// anchorRE matches an HTML anchor, <a id="x"> or <a name="x">.
	anchorRE = regexp.MustCompile(`<a\s[^>]*?\b(?:id|name)="([^"]+)"`)
	// headingRE matches an ATX heading and its text.
	headingRE = regexp.MustCompile(`^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$`)
	// codeSpanRE matches an inline code span.
	codeSpanRE = regexp.MustCompile("`+[^`]*`+")
	// outsideRE matches text that names a place outside the repository.
	outsideRE = regexp.MustCompile(`\.\./shared/`)
)

// page is what the link check needs of one Markdown file.
type page struct {
	links   []link
	anchors map[string]bool
	outside []link // mentions of places outside the repository
}

// parse collects a file's links and the anchors its headings make,
// outside fenced code blocks (and, for links, outside code spans).
func parse(md string) page {
	p := page{anchors: map[string]bool{}}
	seen := map[string]int{}
	fence := ""
	for i, line := range strings.Split(md, "\n") {
		if m := outsideRE.FindString(line); m != "" {
			p.outside = append(p.outside, link{i + 1, m})
		}
		if f := fenceRE.FindStringSubmatch(line); f != nil {
			switch {
			case fence == "":
				fence = f[1]
			case f[1][0] == fence[0] && len(f[1]) >= len(fence):
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		if h := headingRE.FindStringSubmatch(line); h != nil {
			s := Slug(h[1])
			if n := seen[s]; n > 0 {
				p.anchors[fmt.Sprintf("%s-%d", s, n)] = true
			} else {
				p.anchors[s] = true
			}
			seen[s]++
		}
		for _, m := range anchorRE.FindAllStringSubmatch(line, -1) {
			p.anchors[m[1]] = true
		}
		text := codeSpanRE.ReplaceAllStringFunc(line, func(s string) string { return strings.Repeat(" ", len(s)) })
		for _, re := range []*regexp.Regexp{inlineRE, refDefRE, htmlRE} {
			for _, m := range re.FindAllStringSubmatch(text, -1) {
				p.links = append(p.links, link{i + 1, m[1]})
			}
		}
	}
	return p
}

// linkRE strips a link to its text inside a heading.
var linkRE = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)

// tagRE strips HTML tags inside a heading.
var tagRE = regexp.MustCompile(`<[^>]+>`)

// Slug is the anchor GitHub gives a heading: its text (links reduced to
// their text, tags dropped) in lower case, letters, digits, "-" and "_"
// kept, spaces made "-", everything else dropped. A repeated heading gets
// "-1", "-2" ... after the first.
func Slug(heading string) string {
	text := tagRE.ReplaceAllString(linkRE.ReplaceAllString(heading, "$1"), "")
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// CheckLinks checks the links of the Markdown files among files (every
// file of the repository, slash-separated paths relative to its root, as
// git ls-files prints them); read returns a file's text. A link must name
// a file or folder of the repository, without leaving it, and an anchor a
// heading (or an <a id>) of the Markdown file it points into. Web links
// are not followed. Text that points outside the repository (../shared/)
// is a problem too: a reader of the repository cannot follow it.
func CheckLinks(files []string, read func(string) (string, error)) ([]Problem, error) {
	exists := map[string]bool{}
	for _, f := range files {
		exists[f] = true
		for d := path.Dir(f); d != "."; d = path.Dir(d) {
			exists[d+"/"] = true
		}
	}
	pages := map[string]page{}
	get := func(f string) (page, error) {
		if p, ok := pages[f]; ok {
			return p, nil
		}
		text, err := read(f)
		if err != nil {
			return page{}, err
		}
		pages[f] = parse(text)
		return pages[f], nil
	}
	var problems []Problem
	for _, f := range files {
		if !strings.HasSuffix(f, ".md") {
			continue
		}
		p, err := get(f)
		if err != nil {
			return nil, err
		}
		for _, o := range p.outside {
			problems = append(problems, Problem{f, o.line, fmt.Sprintf("%q points outside the repository", o.target)})
		}
		for _, l := range p.links {
			msg, err := checkLink(f, l.target, exists, get)
			if err != nil {
				return nil, err
			}
			if msg != "" {
				problems = append(problems, Problem{f, l.line, msg})
			}
		}
	}
	return problems, nil
}

// checkLink says what is wrong with target, a link in file from (or "").
func checkLink(from, target string, exists map[string]bool, get func(string) (page, error)) (string, error) {
	if i := strings.Index(target, ":"); i > 0 && !strings.ContainsAny(target[:i], "/#.") {
		return "", nil // a scheme: https:, mailto:
	}
	file, anchor, _ := strings.Cut(target, "#")
	dest := from
	if file != "" {
		if strings.HasPrefix(file, "/") {
			return fmt.Sprintf("link %q: use a path relative to the file", target), nil
		}
		dest = path.Join(path.Dir(from), file)
		if dest == ".." || strings.HasPrefix(dest, "../") {
			return fmt.Sprintf("link %q leaves the repository", target), nil
		}
		if !exists[dest] && !exists[dest+"/"] {
			return fmt.Sprintf("link %q: no file %s in the repository", target, dest), nil
		}
	}
	if anchor == "" {
		return "", nil
	}
	if !strings.HasSuffix(dest, ".md") {
		return fmt.Sprintf("link %q: an anchor into %s, which is not Markdown", target, dest), nil
	}
	p, err := get(dest)
	if err != nil {
		return "", err
	}
	if !p.anchors[anchor] {
		return fmt.Sprintf("link %q: %s has no heading with anchor #%s", target, dest, anchor), nil
	}
	return "", nil
}
