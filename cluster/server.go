package cluster

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"
)

// Server is an embedded NATS server with JetStream: on loopback for tests
// and 'arbor mcs --cluster embedded', on any address for 'arbor server'.
type Server struct {
	srv   *server.Server
	dir   string
	owned bool
	Token string
}

// StartServer starts a server on 127.0.0.1 at a random port, storing
// JetStream data in dir (a new temporary directory when dir is ""). A
// non-empty token is required from every client.
func StartServer(dir, token string) (*Server, error) {
	return Listen(ServerConfig{Host: "127.0.0.1", Port: server.RANDOM_PORT, Dir: dir, Token: token})
}

// ServerConfig says how 'arbor server' serves: where, with what storage,
// whom it lets in and over what.
type ServerConfig struct {
	Host string
	Port int // server.RANDOM_PORT (-1) or 0: any free port
	// Dir stores JetStream data (a temporary directory, removed on
	// Shutdown, when "").
	Dir string
	// Token is required from every client, unless NKeys are given: then
	// clients authenticate with one of these users' NKeys (public keys,
	// "U…") instead. One of the two is required.
	Token string
	NKeys []string
	// TLSCert and TLSKey turn TLS on; with TLSCA, clients must also show a
	// certificate that chains to it (mutual TLS).
	TLSCert, TLSKey, TLSCA string
}

// Listen starts a server as cfg says ('arbor server': a cluster's server
// from the same binary as its workers, where no NATS deployment exists).
func Listen(cfg ServerConfig) (*Server, error) {
	if cfg.Token == "" && len(cfg.NKeys) == 0 {
		return nil, errors.New("cluster: a server needs a token or NKey users: an open server would take tasks and records from anyone")
	}
	if cfg.Token != "" && len(cfg.NKeys) > 0 {
		return nil, errors.New("cluster: a server takes a token or NKey users, not both")
	}
	dir, owned := cfg.Dir, false
	if dir == "" {
		d, err := os.MkdirTemp("", "arbor-nats-")
		if err != nil {
			return nil, fmt.Errorf("cluster: a directory for the embedded server: %w", err)
		}
		dir, owned = d, true
	}
	if cfg.Port == 0 {
		cfg.Port = server.RANDOM_PORT
	}
	opts := &server.Options{
		ServerName: "arbor-embedded",
		Host:       cfg.Host,
		Port:       cfg.Port,
		JetStream:  true,
		StoreDir:   dir,
		NoLog:      true,
		NoSigs:     true,
		// Task and record messages are small; instances go to the object
		// store in chunks.
		MaxPayload:    8 << 20,
		Authorization: cfg.Token,
	}
	for _, k := range cfg.NKeys {
		if !nkeys.IsValidPublicUserKey(k) {
			return nil, fmt.Errorf("cluster: %q is not an NKey user's public key (U…)", k)
		}
		opts.Nkeys = append(opts.Nkeys, &server.NkeyUser{Nkey: k})
	}
	if (cfg.TLSCert == "") != (cfg.TLSKey == "") || cfg.TLSCA != "" && cfg.TLSCert == "" {
		return nil, errors.New("cluster: TLS needs a certificate and its key (and a CA only with them)")
	}
	if cfg.TLSCert != "" {
		tc, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: cfg.TLSCert, KeyFile: cfg.TLSKey, CaFile: cfg.TLSCA, Verify: cfg.TLSCA != ""})
		if err != nil {
			return nil, fmt.Errorf("cluster: TLS: %w", err)
		}
		opts.TLSConfig, opts.TLSVerify, opts.TLSTimeout = tc, cfg.TLSCA != "", 2
	}
	cleanup := func() {
		if owned {
			os.RemoveAll(dir)
		}
	}
	srv, err := server.NewServer(opts)
	if err != nil {
		cleanup()
		return nil, fmt.Errorf("cluster: embedded server: %w", err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(30 * time.Second) {
		srv.Shutdown()
		cleanup()
		return nil, fmt.Errorf("cluster: the server did not start on %s:%d (is the port taken?)", cfg.Host, cfg.Port)
	}
	return &Server{srv: srv, dir: dir, owned: owned, Token: cfg.Token}, nil
}

// URL is the client URL, without the token.
func (s *Server) URL() string { return s.srv.ClientURL() }

// Shutdown stops the server and removes its data if it made the directory.
func (s *Server) Shutdown() {
	s.srv.Shutdown()
	s.srv.WaitForShutdown()
	if s.owned {
		os.RemoveAll(s.dir)
	}
}

// nurl returns url with any user information replaced by "***".
func nurl(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	if u.User != nil {
		u.User = url.User("***")
	}
	return u.String(), nil
}
