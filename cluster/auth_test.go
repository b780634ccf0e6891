package cluster

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nkeys"

	"github.com/arbor-gpu/arbor/algorithms/mcs"
)

// testPKI writes a certificate authority, a server certificate for
// 127.0.0.1 and a client certificate, both signed by it, as PEM files in
// dir; it returns their paths (ca, server cert, server key, client cert,
// client key).
func testPKI(t *testing.T, dir string) (ca, srvCert, srvKey, cliCert, cliKey string) {
	t.Helper()
	// issue makes a key and a certificate of tmpl signed by parent's key
	// (parent nil: self-signed).
	issue := func(tmpl, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*ecdsa.PrivateKey, []byte) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		if parent == nil {
			parent, parentKey = tmpl, key
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
		if err != nil {
			t.Fatal(err)
		}
		return key, der
	}
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "arbor test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caKey, caDER := issue(caTmpl, nil, nil)
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, kind string, der []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	leaf := func(name string, serial int64, usage x509.ExtKeyUsage) (string, string) {
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
			IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
		key, der := issue(tmpl, caCert, caKey)
		kb, err := x509.MarshalECPrivateKey(key)
		if err != nil {
			t.Fatal(err)
		}
		return write(name+".pem", "CERTIFICATE", der), write(name+"-key.pem", "EC PRIVATE KEY", kb)
	}
	ca = write("ca.pem", "CERTIFICATE", caDER)
	srvCert, srvKey = leaf("server", 2, x509.ExtKeyUsageServerAuth)
	cliCert, cliKey = leaf("client", 3, x509.ExtKeyUsageClientAuth)
	return ca, srvCert, srvKey, cliCert, cliKey
}

// nkeySeed makes an NKey user and writes its seed to a file: its public
// key and the file.
func nkeySeed(t *testing.T, dir, name string) (string, string) {
	t.Helper()
	kp, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	pub, err := kp.PublicKey()
	if err != nil {
		t.Fatal(err)
	}
	seed, err := kp.Seed()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name+".nk")
	if err := os.WriteFile(p, seed, 0o600); err != nil {
		t.Fatal(err)
	}
	return pub, p
}

// TestNKeyAndTLS runs a job on a server that takes NKey users over mutual
// TLS: a worker and a coordinator with the right seed and certificates
// solve it; a wrong seed, no client certificate, or no trust in the
// server's certificate are refused, each with an error that says so.
func TestNKeyAndTLS(t *testing.T) {
	dir := t.TempDir()
	ca, srvCert, srvKey, cliCert, cliKey := testPKI(t, dir)
	pub, seed := nkeySeed(t, dir, "worker")
	_, otherSeed := nkeySeed(t, dir, "stranger")
	srv, err := Listen(ServerConfig{Host: "127.0.0.1", Dir: t.TempDir(), NKeys: []string{pub}, TLSCert: srvCert, TLSKey: srvKey, TLSCA: ca})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	good := Credentials{NKey: seed, CA: ca, Cert: cliCert, Key: cliKey}
	for _, c := range []struct {
		name string
		cr   Credentials
		want string
	}{
		{"another user's seed", Credentials{NKey: otherSeed, CA: ca, Cert: cliCert, Key: cliKey}, "refused"},
		{"no seed", Credentials{CA: ca, Cert: cliCert, Key: cliKey}, "refused"},
		{"no client certificate", Credentials{NKey: seed, CA: ca}, ""},
		{"the server's certificate not trusted", Credentials{NKey: seed, Cert: cliCert, Key: cliKey}, "certificate"},
		{"a certificate without its key", Credentials{NKey: seed, CA: ca, Cert: cliCert}, "needs both"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		err := RunWorker(ctx, WorkerConfig{URL: srv.URL(), Credentials: c.cr, Name: "bad"})
		cancel()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: worker error %v, want a refusal mentioning %q", c.name, err, c.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- RunWorker(ctx, WorkerConfig{URL: srv.URL(), Credentials: good, Name: "w", Threads: 1, Log: logWriter{t}})
	}()
	c := generatedPairs(t, 1)[0]
	res, err := SolveMCS(deadline(t), CoordinatorConfig{URL: srv.URL(), Credentials: good, Tasks: 8}, c.g, c.h, mcs.Options{})
	checkResult(t, c, res, err)
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("worker: %v", err)
	}
	if _, err := Listen(ServerConfig{Host: "127.0.0.1"}); err == nil {
		t.Error("a server with neither a token nor NKey users started")
	}
	if _, err := Listen(ServerConfig{Host: "127.0.0.1", NKeys: []string{"not-a-key"}}); err == nil {
		t.Error("a server with a malformed NKey user started")
	}
}
