package cluster

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"
)

// Server is an embedded NATS server with JetStream: on loopback for tests
// and 'arbor mcs --cluster embedded', on any address for 'arbor server'.
// It sets up the streams and buckets once at start and keeps them tidy
// (sweep) every SweepEvery.
type Server struct {
	srv   *server.Server
	dir   string
	owned bool
	// Token is the coordinators' token (every right); WorkerToken the
	// workers' (take tasks, publish their results; Roles).
	Token       string
	WorkerToken string

	// conn is the sweeper's in-process connection, a coordinator's
	// (AddWorker registers keys through it).
	conn *Conn

	stop     chan struct{}
	done     chan struct{}
	shutdown sync.Once
}

// StartServer starts a server on 127.0.0.1 at a random port, storing
// JetStream data in dir (a new temporary directory when dir is ""). A
// non-empty token is required from every client; it has every right.
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
	// Token is the coordinators' token: every right. WorkerToken, when
	// set, lets workers in with the worker role's rights only (Roles).
	// Unless NKeys are given: then clients authenticate with one of these
	// users' NKeys (public keys, "U…"), every one with every right.
	Token       string
	WorkerToken string
	NKeys       []string
	// TLSCert and TLSKey turn TLS on; with TLSCA, clients must also show a
	// certificate that chains to it (mutual TLS).
	TLSCert, TLSKey, TLSCA string
	// MaxStore caps JetStream's storage in bytes (0: DefaultMaxStore; < 0:
	// no cap). Past 80 % of it ended jobs are purged, oldest first.
	MaxStore int64
	// SweepEvery is how often expired jobs, old records and unused
	// instances are removed (0: 2 s).
	SweepEvery time.Duration
	// Log receives the sweep's lines (nil: discarded).
	Log func(format string, a ...any)
}

// DefaultMaxStore caps a server's storage where --max-store is not given:
// sized for a laptop.
const DefaultMaxStore = 2 << 30

// Listen starts a server as cfg says ('arbor server': a cluster's server
// from the same binary as its workers, where no NATS deployment exists).
func Listen(cfg ServerConfig) (*Server, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	cfg.setDefaults()
	opts, inner, err := serverOptions(cfg)
	if err != nil {
		return nil, err
	}
	dir, owned := cfg.Dir, false
	if dir == "" {
		removeStaleDirs()
		d, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", tempPrefix, os.Getpid()))
		if err != nil {
			return nil, fmt.Errorf("cluster: a directory for the embedded server: %w", err)
		}
		dir, owned = d, true
	}
	opts.StoreDir = dir
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
	s := &Server{srv: srv, dir: dir, owned: owned, Token: cfg.Token, WorkerToken: cfg.WorkerToken, stop: make(chan struct{}), done: make(chan struct{})}
	if err := s.startSweeper(inner, cfg); err != nil {
		s.stopServer()
		return nil, fmt.Errorf("cluster: setting up the streams: %w", err)
	}
	return s, nil
}

// check rejects a configuration that would open the server to anyone or
// cannot work: no credentials, both kinds, a worker token alone or equal
// to the coordinator's, half a TLS setup.
func (cfg *ServerConfig) check() error {
	if cfg.Token == "" && len(cfg.NKeys) == 0 {
		return errors.New("cluster: a server needs a token or NKey users: an open server would take tasks and records from anyone")
	}
	if cfg.Token != "" && len(cfg.NKeys) > 0 {
		return errors.New("cluster: a server takes a token or NKey users, not both")
	}
	if cfg.WorkerToken != "" && (cfg.Token == "" || cfg.WorkerToken == cfg.Token) {
		return errors.New("cluster: a worker token needs a different coordinator token beside it")
	}
	for _, k := range cfg.NKeys {
		if !nkeys.IsValidPublicUserKey(k) {
			return fmt.Errorf("cluster: %q is not an NKey user's public key (U…)", k)
		}
	}
	if (cfg.TLSCert == "") != (cfg.TLSKey == "") || cfg.TLSCA != "" && cfg.TLSCert == "" {
		return errors.New("cluster: TLS needs a certificate and its key (and a CA only with them)")
	}
	return nil
}

// setDefaults fills in what cfg leaves at zero.
func (cfg *ServerConfig) setDefaults() {
	if cfg.Port == 0 {
		cfg.Port = server.RANDOM_PORT
	}
	if cfg.MaxStore == 0 {
		cfg.MaxStore = DefaultMaxStore
	}
	if cfg.SweepEvery <= 0 {
		cfg.SweepEvery = 2 * time.Second
	}
	if cfg.Log == nil {
		cfg.Log = func(string, ...any) {}
	}
}

// innerAuth is how the server's own sweeper signs in, as a coordinator: a
// token of its own, or an NKey of its own when the users have NKeys.
type innerAuth struct {
	token string
	nkey  nkeys.KeyPair
}

// serverOptions are the NATS server's options for cfg (all but the store
// folder): JetStream, the users and their roles, TLS; with the sweeper's
// credentials, which it adds to the users.
func serverOptions(cfg ServerConfig) (*server.Options, innerAuth, error) {
	var inner innerAuth
	opts := &server.Options{
		ServerName: "arbor-embedded",
		Host:       cfg.Host,
		Port:       cfg.Port,
		JetStream:  true,
		NoLog:      true,
		NoSigs:     true,
		// Task and record messages are small; instances go to the object
		// store in chunks.
		MaxPayload: 8 << 20,
	}
	if cfg.MaxStore > 0 {
		opts.JetStreamMaxStore = cfg.MaxStore
	}
	var err error
	if inner.token, err = NewToken(); err != nil {
		return nil, inner, err
	}
	if len(cfg.NKeys) > 0 {
		for _, k := range cfg.NKeys {
			opts.Nkeys = append(opts.Nkeys, &server.NkeyUser{Nkey: k})
		}
		if inner.nkey, err = nkeys.CreateUser(); err != nil {
			return nil, inner, fmt.Errorf("cluster: the sweeper's NKey: %w", err)
		}
		pub, _ := inner.nkey.PublicKey()
		opts.Nkeys = append(opts.Nkeys, &server.NkeyUser{Nkey: pub})
	} else {
		opts.CustomClientAuthentication = roles{coordinator: []string{cfg.Token, inner.token}, worker: cfg.WorkerToken}
	}
	if cfg.TLSCert != "" {
		tc, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: cfg.TLSCert, KeyFile: cfg.TLSKey, CaFile: cfg.TLSCA, Verify: cfg.TLSCA != ""})
		if err != nil {
			return nil, inner, fmt.Errorf("cluster: TLS: %w", err)
		}
		opts.TLSConfig, opts.TLSVerify, opts.TLSTimeout = tc, cfg.TLSCA != "", 2
	}
	return opts, inner, nil
}

// startSweeper connects the sweeper in-process (no TLS, no port), sets
// up the streams and starts sweeping.
func (s *Server) startSweeper(inner innerAuth, cfg ServerConfig) error {
	copts := []nats.Option{nats.InProcessServer(s.srv), nats.Name("arbor server sweeper"), nats.MaxReconnects(-1), nats.CustomInboxPrefix(coordInbox)}
	if inner.nkey != nil {
		pub, _ := inner.nkey.PublicKey()
		copts = append(copts, nats.Nkey(pub, inner.nkey.Sign))
	} else {
		copts = append(copts, nats.Token(inner.token))
	}
	nc, err := nats.Connect("", copts...)
	if err != nil {
		return err
	}
	js, err := jetstream.New(nc)
	if err == nil {
		conn := &Conn{NC: nc, JS: js}
		s.conn = conn
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err = conn.setup(ctx)
		cancel()
		if err == nil {
			go s.sweeper(conn, sweepConfig{MaxStore: cfg.MaxStore, InstanceGrace: time.Minute, Log: cfg.Log}, cfg.SweepEvery)
			return nil
		}
	}
	nc.Close()
	return err
}

// sweeper runs sweep every period until Shutdown.
func (s *Server) sweeper(conn *Conn, cfg sweepConfig, every time.Duration) {
	defer close(s.done)
	defer conn.NC.Close()
	tick := time.NewTicker(every)
	defer tick.Stop()
	failing := ""
	for {
		select {
		case <-s.stop:
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), every*5)
		err := sweep(ctx, conn, cfg)
		cancel()
		switch {
		case err != nil && err.Error() != failing:
			failing = err.Error()
			cfg.Log("sweep: %v", err)
		case err == nil && failing != "":
			failing = ""
			cfg.Log("sweep: working again")
		}
	}
}

// URL is the client URL, without the token.
func (s *Server) URL() string { return s.srv.ClientURL() }

// Shutdown stops the server and removes its data if it made the
// directory; a second call does nothing.
func (s *Server) Shutdown() {
	s.shutdown.Do(func() {
		close(s.stop)
		<-s.done
		s.stopServer()
	})
}

func (s *Server) stopServer() {
	s.srv.Shutdown()
	s.srv.WaitForShutdown()
	if s.owned {
		os.RemoveAll(s.dir)
	}
}

// tempPrefix names an embedded server's temporary directory, followed by
// the process id: a later start removes those of dead processes (a
// coordinator killed with SIGKILL cannot remove its own).
const tempPrefix = "arbor-nats-"

func removeStaleDirs() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), tempPrefix+"*"))
	for _, d := range dirs {
		rest := strings.TrimPrefix(filepath.Base(d), tempPrefix)
		pid, err := strconv.Atoi(rest[:max(strings.IndexByte(rest, '-'), 0)])
		if err != nil || pid == os.Getpid() || processAlive(pid) {
			continue
		}
		os.RemoveAll(d)
	}
}

// nurl returns url with any user information replaced by "***" (written
// as such, not escaped).
func nurl(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	if u.User == nil {
		return u.String(), nil
	}
	u.User = nil
	s := u.String()
	if i := strings.Index(s, "://"); i >= 0 {
		return s[:i+3] + "***@" + s[i+3:], nil
	}
	return "***@" + s, nil
}
