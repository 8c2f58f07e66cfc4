package auth

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"

	"google.golang.org/grpc/credentials"
)

// ServerTLS returns server transport credentials from a PEM certificate and
// key, reloaded when their files change (ServerTLSConfig). With caFile,
// clients must present a certificate signed by one of its CAs (mutual
// TLS), the file read again when it changes too (CAPool); without it any
// client may connect (the token still applies).
func ServerTLS(certFile, keyFile, caFile string) (credentials.TransportCredentials, error) {
	if certFile == "" || keyFile == "" {
		return nil, errors.New("auth: server TLS needs both a certificate and a key file")
	}
	cfg, err := ServerTLSConfig(certFile, keyFile)
	if err != nil {
		return nil, err
	}
	if caFile != "" {
		cas, err := LoadCAPool(caFile)
		if err != nil {
			return nil, err
		}
		cfg.ClientCAs, cfg.ClientAuth = cas.Pool(), tls.RequireAndVerifyClientCert
		base := cfg.Clone()
		// Each handshake gets the CAs of the file as it is now (gRPC's
		// credentials add h2 to what this returns, as to cfg).
		cfg.GetConfigForClient = func(*tls.ClientHelloInfo) (*tls.Config, error) {
			c := base.Clone()
			c.ClientCAs = cas.Pool()
			return c, nil
		}
	}
	return credentials.NewTLS(cfg), nil
}

// ServerTLSConfig is the TLS configuration of a server whose certificate
// and key are in files: read now (an error if they do not load), and
// again when they change (KeyPair), so a renewed certificate is served
// without a restart. The status server's HTTPS uses it as it is.
func ServerTLSConfig(certFile, keyFile string) (*tls.Config, error) {
	kp, err := LoadKeyPair(certFile, keyFile)
	if err != nil {
		return nil, err
	}
	return &tls.Config{GetCertificate: kp.GetCertificate, MinVersion: tls.VersionTLS12}, nil
}

// ClientTLS returns client transport credentials. caFile holds the CAs that
// may sign the server's certificate ("" = the system's roots); certFile and
// keyFile (both or neither) are the client certificate for mutual TLS;
// serverName overrides the name checked in the server's certificate ("" =
// the host of the dialled address).
func ClientTLS(caFile, certFile, keyFile, serverName string) (credentials.TransportCredentials, error) {
	cfg := &tls.Config{ServerName: serverName, MinVersion: tls.VersionTLS12}
	if caFile != "" {
		pool, err := loadPool(caFile)
		if err != nil {
			return nil, err
		}
		cfg.RootCAs = pool
	}
	switch {
	case certFile != "" && keyFile != "":
		kp, err := LoadKeyPair(certFile, keyFile)
		if err != nil {
			return nil, err
		}
		cfg.GetClientCertificate = kp.GetClientCertificate
	case certFile != "" || keyFile != "":
		return nil, errors.New("auth: a client certificate needs both a certificate and a key file")
	}
	return credentials.NewTLS(cfg), nil
}

func loadKeyPair(certFile, keyFile string) (tls.Certificate, error) {
	for _, f := range []string{certFile, keyFile} {
		if _, err := os.Stat(f); err != nil {
			return tls.Certificate{}, fmt.Errorf("auth: tls: %w", err)
		}
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("auth: tls key pair %s, %s: %w", certFile, keyFile, err)
	}
	return cert, nil
}

func loadPool(caFile string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("auth: tls ca: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("auth: tls ca %s: no PEM certificate found", caFile)
	}
	return pool, nil
}
