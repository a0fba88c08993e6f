package main_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// selfSigned writes a self-signed ECDSA certificate for 127.0.0.1 and
// localhost, and its key, into dir; it returns their paths and the
// certificate.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, cert *x509.Certificate) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "sharevat test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:              []string{"localhost"},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err = x509.ParseCertificate(der)
	require.NoError(t, err)
	kder, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	require.NoError(t, os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	require.NoError(t, os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600))
	return certFile, keyFile, cert
}

// TestServeTLS: with --tls-cert/--tls-key serve speaks TLS itself: it
// prints a wss:// URL, the real CLI client creates a share over
// it when it trusts the certificate (SSL_CERT_FILE), and /healthz answers
// over https. The flags go together.
func TestServeTLS(t *testing.T) {
	certFile, keyFile, cert := selfSigned(t, t.TempDir())
	srv := startServer(t, t.TempDir(), "--tls-cert", certFile, "--tls-key", keyFile)
	require.True(t, strings.HasPrefix(srv.URL, "wss://127.0.0.1:"), srv.URL)

	out, stderr, code := cli(t, "", []string{"SHAREVAT_URL=" + srv.URL, "SSL_CERT_FILE=" + certFile,
		"SHAREVAT_TOKEN_FILE=" + filepath.Join(srv.Data, "admin.token")}, "create", "--title", "over tls")
	require.Equal(t, 0, code, stderr)
	assert.NotEmpty(t, firstLine(out))

	roots := x509.NewCertPool()
	roots.AddCert(cert)
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
	resp, err := hc.Get("https" + strings.TrimSuffix(strings.TrimPrefix(srv.URL, "wss"), "/rpc") + "/healthz")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "HTTP/1.1", resp.Proto, "no HTTP/2: WebSocket upgrades need HTTP/1.1")

	_, stderr, code = cli(t, "", nil, "serve", "--listen", "127.0.0.1:0", "--data", t.TempDir(), "--tls-cert", certFile)
	assert.Equal(t, 2, code, "--tls-cert without --tls-key is a usage error: %s", stderr)
	assert.Contains(t, stderr, "--tls-key")
}
