package auth

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"os"
	"sync"
	"time"
)

// ReloadCheck is how often, at most, a KeyPair looks at its files again: a
// handshake after that re-reads them (two small files), and a change is
// served from the next handshake on. Certificates renewed by cert-manager
// or a mounted Secret's update take effect within a second of landing.
var ReloadCheck = time.Second

// KeyPair is a certificate and its key served from files that may change
// while the process runs (a renewed certificate): every handshake asks it
// for the certificate (tls.Config.GetCertificate and
// GetClientCertificate), and it reads the files again at most every
// ReloadCheck. A pair that does not load (a half-written update, a key
// that does not match) leaves the last good one in service, and the
// next check tries again; LastError says why.
type KeyPair struct {
	certFile, keyFile string

	mu       sync.Mutex
	cert     *tls.Certificate
	pemCert  []byte // the files' contents behind cert
	pemKey   []byte
	checked  time.Time
	lastErr  error
	reloaded int
}

// LoadKeyPair reads the pair once, as tls.LoadX509KeyPair does, and
// returns a KeyPair that serves it and follows the files from then on.
func LoadKeyPair(certFile, keyFile string) (*KeyPair, error) {
	k := &KeyPair{certFile: certFile, keyFile: keyFile}
	c, pc, pk, err := readPair(certFile, keyFile)
	if err != nil {
		return nil, err
	}
	k.cert, k.pemCert, k.pemKey, k.checked = c, pc, pk, time.Now()
	return k, nil
}

// readPair reads and parses both files.
func readPair(certFile, keyFile string) (*tls.Certificate, []byte, []byte, error) {
	if _, err := loadKeyPair(certFile, keyFile); err != nil { // the errors of a first load, naming the files
		return nil, nil, nil, err
	}
	pc, err := os.ReadFile(certFile)
	if err != nil {
		return nil, nil, nil, err
	}
	pk, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, nil, nil, err
	}
	c, err := tls.X509KeyPair(pc, pk)
	if err != nil {
		return nil, nil, nil, err
	}
	return &c, pc, pk, nil
}

// Certificate returns the pair to serve now, reading the files again
// when ReloadCheck has passed since the last look and they changed.
func (k *KeyPair) Certificate() *tls.Certificate {
	k.mu.Lock()
	defer k.mu.Unlock()
	if now := time.Now(); now.Sub(k.checked) >= ReloadCheck {
		k.checked = now
		k.reloadLocked()
	}
	return k.cert
}

// reloadLocked reads the files and swaps the pair in when they changed and
// parse.
func (k *KeyPair) reloadLocked() {
	pc, err1 := os.ReadFile(k.certFile)
	pk, err2 := os.ReadFile(k.keyFile)
	if err1 != nil || err2 != nil {
		k.lastErr = firstErr(err1, err2)
		return
	}
	if bytes.Equal(pc, k.pemCert) && bytes.Equal(pk, k.pemKey) {
		return
	}
	c, err := tls.X509KeyPair(pc, pk)
	if err != nil {
		k.lastErr = err // a half-written update: keep the old pair, look again later
		return
	}
	k.cert, k.pemCert, k.pemKey, k.lastErr = &c, pc, pk, nil
	k.reloaded++
}

// Reloads is how many times a changed pair was taken into service.
func (k *KeyPair) Reloads() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.reloaded
}

// LastError is why the last look at the files did not load them (nil
// when it did, or they had not changed).
func (k *KeyPair) LastError() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.lastErr
}

// GetCertificate is for tls.Config.GetCertificate (a server's pair).
func (k *KeyPair) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	return k.Certificate(), nil
}

// GetClientCertificate is for tls.Config.GetClientCertificate (a client's
// pair in mutual TLS).
func (k *KeyPair) GetClientCertificate(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
	return k.Certificate(), nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// CAPool is a pool of CA certificates read from a file that may change (a
// CA bundle rotated to add the next CA): Pool reads it again at most every
// ReloadCheck, and a file that holds no certificate leaves the last good
// pool in service.
type CAPool struct {
	file string

	mu      sync.Mutex
	pool    *x509.CertPool
	pem     []byte
	checked time.Time
}

// LoadCAPool reads the pool once (an error if the file holds no PEM
// certificate) and follows the file from then on.
func LoadCAPool(file string) (*CAPool, error) {
	pool, err := loadPool(file)
	if err != nil {
		return nil, err
	}
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return &CAPool{file: file, pool: pool, pem: pem, checked: time.Now()}, nil
}

// Pool returns the CAs to trust now.
func (c *CAPool) Pool() *x509.CertPool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if now := time.Now(); now.Sub(c.checked) >= ReloadCheck {
		c.checked = now
		if pem, err := os.ReadFile(c.file); err == nil && !bytes.Equal(pem, c.pem) {
			if p := x509.NewCertPool(); p.AppendCertsFromPEM(pem) {
				c.pool, c.pem = p, pem
			}
		}
	}
	return c.pool
}
