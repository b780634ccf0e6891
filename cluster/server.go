package cluster

import (
	"fmt"
	"net/url"
	"os"
	"time"

	"github.com/nats-io/nats-server/v2/server"
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
	return Listen("127.0.0.1", server.RANDOM_PORT, dir, token)
}

// Listen is StartServer on host and port ('arbor server': a cluster's
// server from the same binary as its workers, where no NATS deployment
// exists).
func Listen(host string, port int, dir, token string) (*Server, error) {
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
		Host:       host,
		Port:       port,
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
		if owned {
			os.RemoveAll(dir)
		}
		return nil, fmt.Errorf("cluster: the server did not start on %s:%d (is the port taken?)", host, port)
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
