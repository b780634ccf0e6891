package cluster

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/arbor-gpu/arbor/internal/syncio"
)

// Environment variables that hand a locally started worker its server:
// the token travels this way rather than on the command line, where other
// users of the machine could read it.
const (
	EnvURL   = "ARBOR_CLUSTER_URL"
	EnvToken = "ARBOR_CLUSTER_TOKEN"
	// EnvWorkerToken is 'arbor server --worker-token' from the environment.
	EnvWorkerToken = "ARBOR_CLUSTER_WORKER_TOKEN"
)

// NewToken returns a random token for an embedded server.
func NewToken() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("cluster: a token: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// Processes are worker processes started on this machine.
type Processes struct {
	cmds []*exec.Cmd
	wg   sync.WaitGroup
	mu   sync.Mutex
	errs []error
}

// SyncWriter returns a writer that serialises writes to w: w itself when
// it is an *os.File (the kernel orders writes to a file or pipe) or
// already one of these, else w behind a mutex. Give the result to every
// goroutine and process that writes to w: os/exec copies each process's
// output into a non-file writer from a goroutine of its own, so several
// processes sharing a bytes.Buffer (as tests do) would race.
func SyncWriter(w io.Writer) io.Writer {
	switch w.(type) {
	case *os.File, *syncio.Writer:
		return w
	}
	return &syncio.Writer{W: w}
}

// StartWorkers starts n worker processes made by command (e.g. the arbor
// binary with the argument "worker"), each told the server's URL and token
// through EnvURL and EnvToken. Their output goes to out, through
// SyncWriter (pass the caller's own writes through SyncWriter(out) too).
func StartWorkers(n int, url, token string, out io.Writer, command func(i int) *exec.Cmd) (*Processes, error) {
	p := &Processes{}
	out = SyncWriter(out)
	for i := 0; i < n; i++ {
		cmd := command(i)
		cmd.Env = append(cmd.Environ(), EnvURL+"="+url, EnvToken+"="+token)
		dieWithParent(cmd)
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			p.Stop()
			return nil, fmt.Errorf("cluster: starting worker %d: %w", i, err)
		}
		p.cmds = append(p.cmds, cmd)
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			if err := cmd.Wait(); err != nil {
				p.mu.Lock()
				p.errs = append(p.errs, fmt.Errorf("worker %d: %w", i, err))
				p.mu.Unlock()
			}
		}()
	}
	return p, nil
}

// Stop asks every worker to finish (SIGTERM: a task under way is handed
// back), kills those still running after a grace period, and waits.
func (p *Processes) Stop() {
	for _, c := range p.cmds {
		if c.Process != nil {
			_ = c.Process.Signal(syscall.SIGTERM)
		}
	}
	done := make(chan struct{})
	go func() { p.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		for _, c := range p.cmds {
			if c.Process != nil {
				_ = c.Process.Kill()
			}
		}
		<-done
	}
}

// Errors returns how workers that exited before Stop failed.
func (p *Processes) Errors() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return errors.Join(p.errs...)
}

// Embedded is an embedded server with local worker processes.
type Embedded struct {
	Server  *Server
	Workers *Processes
}

// StartEmbedded starts a loopback server with fresh coordinator and worker
// tokens, and n worker processes (given the worker token). The workers die
// with this process, even by SIGKILL (Linux), and a temporary directory
// left by a killed one is removed at the next start.
func StartEmbedded(n int, out io.Writer, command func(i int) *exec.Cmd) (*Embedded, error) {
	token, err := NewToken()
	if err != nil {
		return nil, err
	}
	wtoken, err := NewToken()
	if err != nil {
		return nil, err
	}
	srv, err := Listen(ServerConfig{Host: "127.0.0.1", Token: token, WorkerToken: wtoken})
	if err != nil {
		return nil, err
	}
	// Each process gets a key of its own, registered here: a worker token
	// alone signs nothing that counts.
	keys := make([]WorkerKey, n)
	for i := range keys {
		if keys[i], err = srv.AddWorker(fmt.Sprintf("embedded%d-%d", os.Getpid(), i)); err != nil {
			srv.Shutdown()
			return nil, err
		}
	}
	ps, err := StartWorkers(n, srv.URL(), wtoken, out, func(i int) *exec.Cmd {
		cmd := command(i)
		cmd.Env = append(cmd.Environ(), EnvWorkerKey+"="+string(keys[i].Encode()))
		return cmd
	})
	if err != nil {
		srv.Shutdown()
		return nil, err
	}
	return &Embedded{Server: srv, Workers: ps}, nil
}

// Close stops the workers, then the server.
func (e *Embedded) Close() {
	e.Workers.Stop()
	e.Server.Shutdown()
}

// WorkerFromEnv fills URL and token from EnvURL and EnvToken where empty,
// and the key from EnvWorkerKey (an error when it does not parse).
func WorkerFromEnv(cfg WorkerConfig) (WorkerConfig, error) {
	if k := os.Getenv(EnvWorkerKey); k != "" && cfg.Key == nil {
		key, err := DecodeWorkerKey([]byte(k), "$"+EnvWorkerKey)
		if err != nil {
			return cfg, err
		}
		cfg.Key = &key
	}
	if cfg.URL == "" {
		cfg.URL = os.Getenv(EnvURL)
	}
	if cfg.Token == "" {
		cfg.Token = os.Getenv(EnvToken)
	}
	if cfg.Token == "" {
		cfg.Token = os.Getenv(EnvWorkerToken)
	}
	return cfg, nil
}
