package status

import (
	"bytes"
	"embed"
	"html/template"
	"net/http"
)

//go:embed web/dashboard.html web/login.html
var webFS embed.FS

var (
	dashboardTmpl = template.Must(template.ParseFS(webFS, "web/dashboard.html"))
	loginTmpl     = template.Must(template.ParseFS(webFS, "web/login.html"))
)

// dashboard renders the page with the current snapshot in it, so it shows
// the job at once; its script then follows /events.
func (h *handler) dashboard(w http.ResponseWriter, r *http.Request) {
	var buf bytes.Buffer
	a := h.snapshot()
	a.TopWorkers(DefaultPageWorkers)
	if err := dashboardTmpl.Execute(&buf, a); err != nil {
		h.opts.Log.Warn("dashboard template failed", "error", err)
		http.Error(w, "template failed", http.StatusInternalServerError)
		return
	}
	pageHeaders(w)
	w.Write(buf.Bytes())
}

func (h *handler) renderLogin(w http.ResponseWriter, failed bool) {
	pageHeaders(w)
	loginTmpl.Execute(w, struct{ Failed bool }{failed})
}

// pageHeaders keep the pages from being framed or loading anything from
// elsewhere: everything they need is inline or on this server.
func pageHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'; frame-ancestors 'none'")
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Referrer-Policy", "no-referrer")
}
