package cluster

import (
	"fmt"
	"net/url"
	"os"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Server is an embedded NATS server with JetStream, listening on loopback
// only: for tests and 'arbor mcs --cluster embedded'.
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
	owned := false
	if dir == "" {
		d, err := os.MkdirTemp("", "arbor-nats-")
		if err != nil {
			return nil, fmt.Errorf("cluster: a directory for the embedded server: %w", err)
		}
		dir, owned = d, true
	}
	opts := &server.Options{
		ServerName: "arbor-embedded",
		Host:       "127.0.0.1",
		Port:       server.RANDOM_PORT,
		JetStream:  true,
		StoreDir:   dir,
		NoLog:      true,
		NoSigs:     true,
		// Task and record messages are small; instances go to the object
		// store in chunks.
		MaxPayload: 8 << 20,
	}
	if token != "" {
		opts.Authorization = token
	}
	srv, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("cluster: embedded server: %w", err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(30 * time.Second) {
		srv.Shutdown()
		return nil, fmt.Errorf("cluster: the embedded server did not start")
	}
	return &Server{srv: srv, dir: dir, owned: owned, Token: token}, nil
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
