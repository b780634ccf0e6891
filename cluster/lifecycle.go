package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Client says how to reach a cluster as a coordinator ('arbor jobs').
type Client struct {
	URL         string
	Token       string
	Credentials Credentials
}

func (cl Client) connect(ctx context.Context) (*Conn, *jobStore, error) {
	conn, err := Connect(cl.URL, cl.Token, "arbor jobs", cl.Credentials)
	if err != nil {
		return nil, nil, err
	}
	s, err := conn.openJobs(ctx, true)
	if err != nil {
		last := conn.NC.LastError()
		conn.Close()
		if errors.Is(err, jetstream.ErrBucketNotFound) {
			return nil, nil, fmt.Errorf("cluster: %s holds no jobs yet", redact(cl.URL))
		}
		if last != nil && strings.Contains(strings.ToLower(last.Error()), "permission") {
			return nil, nil, fmt.Errorf("cluster: %s: a worker's token? this needs the coordinator token (%w)", redact(cl.URL), last)
		}
		return nil, nil, err
	}
	return conn, s, nil
}

// ListJobs returns the jobs the server knows, oldest first.
func ListJobs(ctx context.Context, cl Client) ([]*JobInfo, error) {
	conn, s, err := cl.connect(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return s.list(ctx)
}

// openJob connects and reads job's record: an error when there is none.
// The caller closes the connection.
func (cl Client) openJob(ctx context.Context, job string) (*Conn, *jobStore, *JobInfo, error) {
	conn, s, err := cl.connect(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	j, err := s.get(ctx, job)
	if err == nil && j == nil {
		err = fmt.Errorf("cluster: no job %s", job)
	}
	if err != nil {
		conn.Close()
		return nil, nil, nil, err
	}
	return conn, s, j, nil
}

// CancelJob stops a running job: its signed end record (cancelled) makes
// the workers drop its tasks, running ones included, and its coordinator
// stop with an error; its queued tasks are purged. Its records stay until
// PurgeJob or the next sweep.
func CancelJob(ctx context.Context, cl Client, job string) error {
	conn, s, j, err := cl.openJob(ctx, job)
	if err != nil {
		return err
	}
	defer conn.Close()
	if j.State == StatePurged {
		return fmt.Errorf("cluster: no job %s", job)
	}
	if j.State != StateRunning && j.State != StateStopped {
		return fmt.Errorf("cluster: job %s is %s already", job, j.State)
	}
	key, err := s.key(ctx, job, j.Epoch)
	if err != nil {
		return err
	}
	if err := conn.endJob(ctx, s, j, key, Record{Cancelled: true}); err != nil {
		return err
	}
	if tasks, err := conn.JS.Stream(ctx, TaskStream); err == nil {
		if err := tasks.Purge(ctx, jetstream.WithPurgeSubject(taskSubject(job))); err != nil {
			return fmt.Errorf("cluster: purging the tasks of job %s: %w", job, err)
		}
	}
	return nil
}

// PurgeJob removes a job: its queued tasks, its records and its key; the
// instance goes too when no other job uses it. A running job is cancelled
// first.
func PurgeJob(ctx context.Context, cl Client, job string) error {
	conn, s, j, err := cl.openJob(ctx, job)
	if err != nil {
		return err
	}
	defer conn.Close()
	if j.State == StateRunning || j.State == StateStopped {
		if key, err := s.key(ctx, job, j.Epoch); err == nil {
			_ = conn.endJob(ctx, s, j, key, Record{Cancelled: true}) // tells running workers to stop
		}
	}
	if err := conn.purgeJob(ctx, s, j); err != nil {
		return err
	}
	return removeUnused(ctx, conn, s, 0, func(string, ...any) {})
}

// sweepConfig says how a sweep keeps the server tidy.
type sweepConfig struct {
	// MaxStore is the JetStream storage cap in bytes (0: none); past
	// 80 % of it, ended jobs are purged, oldest first.
	MaxStore int64
	// InstanceGrace keeps an unused instance this long after its upload
	// (a coordinator uploads before its plan).
	InstanceGrace time.Duration
	Log           func(format string, a ...any)
}

// sweep purges expired and old jobs, keeps storage under the cap, removes
// instances no live job uses and recreates missing assets ('arbor
// server' runs it every few seconds; a coordinator once at its start).
func sweep(ctx context.Context, conn *Conn, cfg sweepConfig) error {
	if _, err := conn.setup(ctx); err != nil {
		return err
	}
	s, err := conn.openJobs(ctx, true)
	if err != nil {
		return err
	}
	jobs, err := s.list(ctx)
	if err != nil {
		return err
	}
	now := time.Now()
	var finished []*JobInfo
	for _, j := range jobs {
		switch {
		case j.Expired(now):
			cfg.Log("job %s (epoch %s) expired: its coordinator has been silent for %v; purging it", j.Job, j.Epoch, now.Sub(j.Written).Round(time.Second))
			if err := conn.purgeJob(ctx, s, j); err != nil {
				cfg.Log("%v", err)
			}
		case j.State == StatePurged && now.Sub(j.Written) > 10*time.Minute:
			_ = s.jobs.Purge(ctx, j.Job)
		case (j.State == StateEnded || j.State == StateCancelled) && now.Sub(j.Written) > recordsKept:
			if err := conn.purgeJob(ctx, s, j); err != nil {
				cfg.Log("%v", err)
			}
		case j.State == StateEnded || j.State == StateCancelled:
			finished = append(finished, j)
		}
	}
	if cfg.MaxStore > 0 {
		slices.SortFunc(finished, func(a, b *JobInfo) int { return a.Written.Compare(b.Written) })
		for _, j := range finished {
			ai, err := conn.JS.AccountInfo(ctx)
			if err != nil || int64(ai.Store) <= cfg.MaxStore*8/10 {
				break
			}
			cfg.Log("storage %d MiB of %d MiB: purging ended job %s", ai.Store>>20, cfg.MaxStore>>20, j.Job)
			if err := conn.purgeJob(ctx, s, j); err != nil {
				cfg.Log("%v", err)
			}
		}
	}
	return removeUnused(ctx, conn, s, cfg.InstanceGrace, cfg.Log)
}

// removeUnused deletes the instances no job (but a purged one) names,
// uploaded more than grace ago.
func removeUnused(ctx context.Context, conn *Conn, s *jobStore, grace time.Duration, logf func(string, ...any)) error {
	obs, err := conn.JS.ObjectStore(ctx, InstanceBucket)
	if err != nil {
		return nil // nothing uploaded yet
	}
	jobs, err := s.list(ctx)
	if err != nil {
		return err
	}
	live := map[string]bool{}
	for _, j := range jobs {
		if j.State != StatePurged {
			live[j.Instance] = true
		}
	}
	infos, err := obs.List(ctx)
	if errors.Is(err, jetstream.ErrNoObjectsFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cluster: listing instances: %w", err)
	}
	for _, o := range infos {
		if live[o.Name] || time.Since(o.ModTime) < grace {
			continue
		}
		if err := obs.Delete(ctx, o.Name); err != nil && !errors.Is(err, jetstream.ErrObjectNotFound) {
			logf("removing instance %.12s…: %v", o.Name, err)
		}
	}
	return nil
}
