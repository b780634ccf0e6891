package cluster

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// epochRun is one runEpoch: the job's live epoch on the server, the
// ledger its records build and the evidence its audits need. The phases
// of an epoch (claim and upload, plan, follow the records, finish) and the
// chores of the follow loop (renew the lease, hand back silent workers'
// tasks, the watchdog, audits) are its methods; they share this state
// because they all read and change the one ledger, as the closures of a
// single function once did. It lives for one call, so it keeps that
// call's ctx.
type epochRun struct {
	*coordinator
	ctx      context.Context
	job      string
	workCons jetstream.Consumer
	store    *jobStore
	info     *JobInfo // renew replaces it with what it wrote
	key      ed25519.PrivateKey
	resumed  bool
	epoch    string
	// cleaned: the job was let go of by stopped (cleanUp has nothing left
	// to do).
	cleaned        bool
	results, tasks jetstream.Stream
	sg             *signers
	alive          *aliveWorkers

	l                  *ledger
	records, leftovers int
	// The evidence (evidence.go): every record taken, to rebuild the
	// ledger without a quarantined worker's; the last done records, which
	// a proof audits; records judged only at the proof.
	history, lastDone, deferred []*Record
	quarantined                 map[string]string // key → worker name
	requeued                    map[string]bool
	finalAsked                  bool
	aud                         *auditor
	unsignedBest                bool
	// waiting are records signed by keys not registered yet.
	waiting  []*Record
	lastWait time.Time

	// The record reader (startReader) and its backoffs.
	msgs                chan jetstream.Msg
	readErr             chan error
	rctx                context.Context
	readBack, renewBack *backoff

	lastRenew, lastQueue, lastProgress time.Time
	queued, running                    int
	publishedChecked                   map[int]bool
	awaitRound                         int
	handedBack                         map[uint64]bool
	// The watchdog: when the job has open tasks while the shared queue has
	// nothing queued or running for stallAfter, its open roots were lost
	// (seen once in a chaos run: a root never done, never handed back);
	// they are published again. Children cannot be: only their ids are
	// recorded.
	idleSince, lastCheck time.Time
	republished          int
}

// runEpoch runs the job in its live epoch (claiming one first) until it
// is proven, stopped, cancelled, or vanishes.
func (c *coordinator) runEpoch(ctx context.Context) (Result, error) {
	e := &epochRun{coordinator: c, ctx: ctx, job: c.spec.job}
	if err := e.claimEpoch(); err != nil {
		return Result{}, err
	}
	// A fresh job stopped before its records are followed (a short
	// timeout ending during the upload or the plan) is cancelled and
	// purged too: nobody can resume it.
	defer e.cleanUp()
	if err := e.upload(); err != nil {
		return Result{}, err
	}
	if !e.resumed {
		if err := e.plan(0); err != nil {
			return Result{}, err
		}
	}
	e.hint(0)
	sg, err := c.conn.signers(ctx)
	if err != nil {
		return Result{}, err
	}
	e.sg = sg
	alive, err := listenAlive(c.conn, sg, func(f string, a ...any) { c.lg.Printf("job %s: "+f, append([]any{e.job}, a...)...) })
	if err != nil {
		return Result{}, err
	}
	e.alive = alive
	defer alive.stop()

	e.l = newLedger(c.spec.minimize)
	if c.spec.start != nil {
		e.l.offer(c.spec.start)
	}
	e.quarantined, e.requeued = map[string]string{}, map[string]bool{}
	e.publishedChecked, e.handedBack = map[int]bool{}, map[uint64]bool{}
	rate := c.cfg.AuditRate
	if rate == 0 {
		rate = DefaultAuditRate
	}
	var audits <-chan auditVerdict
	if c.spec.audit != nil {
		actx, stopAudits := context.WithCancel(ctx)
		defer stopAudits()
		e.aud = newAuditor(actx, max(rate, 0), c.spec.audit)
		audits = e.aud.out
	}

	// Read every record of the job from the start, then follow new ones.
	// A reader that fails is started again from the start: the ledger
	// ignores what it has seen.
	e.msgs, e.readErr = make(chan jetstream.Msg, 256), make(chan error, 1)
	rctx, stopReading := context.WithCancel(ctx)
	defer stopReading()
	e.rctx = rctx
	if err := e.startReader(); err != nil {
		return e.result(), err
	}
	e.readBack = newBackoff("job "+e.job+": reading its records", c.lg.Printf)
	e.renewBack = newBackoff("job "+e.job+": renewing its lease", c.lg.Printf)

	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	e.lastRenew = time.Now()
	if res, proven, err := e.follow(tick.C, audits); !proven {
		return res, err
	}
	return e.finish()
}

// claimEpoch opens the queue and the job store and claims the job's live
// epoch (resumed) or a new one.
func (e *epochRun) claimEpoch() error {
	workCons, err := e.conn.setup(e.ctx)
	if err != nil {
		return err
	}
	e.workCons = workCons
	store, err := e.conn.openJobs(e.ctx, true)
	if err != nil {
		return err
	}
	e.store = store
	info, key, resumed, err := e.claim(e.ctx, store)
	if err != nil {
		return err
	}
	e.info, e.key, e.resumed, e.epoch = info, key, resumed, info.Epoch
	return nil
}

// cleanUp cancels and purges a fresh job that stopped (its context ended)
// before stopped let go of it: nobody can resume it.
func (e *epochRun) cleanUp() {
	if e.cfg.Fresh && !e.cleaned && e.ctx.Err() != nil {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(e.ctx), 5*time.Second)
		defer cancel()
		_ = e.conn.endJob(cctx, e.store, e.info, e.key, Record{Cancelled: true})
		if err := e.conn.purgeJob(cctx, e.store, e.info); err != nil {
			e.lg.Printf("%v", err)
		}
	}
}

// upload puts the instance in the object store unless it is there, and
// opens the result and task streams.
func (e *epochRun) upload() error {
	ctx, conn, hash := e.ctx, e.conn, e.spec.hash
	obs, err := conn.JS.ObjectStore(ctx, InstanceBucket)
	if err != nil {
		return fmt.Errorf("cluster: object store %s: %w", InstanceBucket, err)
	}
	if _, err := obs.GetInfo(ctx, hash); errors.Is(err, jetstream.ErrObjectNotFound) {
		if _, err := obs.PutBytes(ctx, hash, e.spec.data); err != nil {
			return fmt.Errorf("cluster: uploading the instance: %w", err)
		}
	} else if err != nil {
		return fmt.Errorf("cluster: looking up the instance: %w", err)
	}
	if e.results, err = conn.JS.Stream(ctx, ResultStream); err != nil {
		return fmt.Errorf("cluster: stream %s: %w", ResultStream, err)
	}
	if e.tasks, err = conn.JS.Stream(ctx, TaskStream); err != nil {
		return fmt.Errorf("cluster: stream %s: %w", TaskStream, err)
	}
	return nil
}

// publish publishes the coordinator's own record of a kind, signed with
// the job key where the workers check it.
func (e *epochRun) publish(kind string, r Record) error {
	r.Protocol, r.Kind, r.Job, r.Epoch = protocol, kind, e.job, e.epoch
	if signedKind(kind) || kind == kindBest {
		// (the hint, a best record, is signed with the job key: no
		// worker key signs it)
		if err := signRecord(&r, e.key); err != nil {
			return err
		}
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	id := fmt.Sprintf("%s.%s.%s.%d", e.job, e.epoch, kind, r.Round)
	if _, err := e.conn.JS.Publish(e.ctx, resultSubject(e.job, kind), b, jetstream.WithMsgID(id)); err != nil {
		return fmt.Errorf("cluster: publishing the %s record: %w", kind, err)
	}
	return nil
}

// publishTasks queues a round's root tasks, then says so (a resumed
// coordinator republishes them when that record is missing).
func (e *epochRun) publishTasks(roots []Task, round int) error {
	for i := range roots {
		b, err := json.Marshal(&roots[i])
		if err != nil {
			return err
		}
		if _, err := e.conn.JS.Publish(e.ctx, taskSubject(e.job), b, jetstream.WithMsgID(roots[i].ID)); err != nil {
			return fmt.Errorf("cluster: publishing a task: %w", err)
		}
	}
	return e.publish(kindPublished, Record{Round: round})
}

// plan publishes a round's plan record and its root tasks.
func (e *epochRun) plan(round int) error {
	roots, err := e.spec.roots(e.cfg, e.epoch, round)
	if err != nil {
		return err
	}
	// The plan goes first: from then on the job can be resumed.
	if b, _ := json.Marshal(Record{Roots: roots}); int64(len(b)) > e.conn.NC.MaxPayload() {
		return fmt.Errorf("cluster: a plan of %d root tasks (%d KiB) exceeds the server's message limit (%d KiB): ask for fewer tasks",
			len(roots), len(b)>>10, e.conn.NC.MaxPayload()>>10)
	}
	if err := e.publish(kindPlan, Record{Roots: roots, Round: round}); err != nil {
		return err
	}
	return e.publishTasks(roots, round)
}

// hint publishes the canary made one worse as an incumbent. The workers
// prune with it (without it they search, until one of them finds as good
// a solution, subtrees the canary's size rules out: a calm local run of
// mcs90_b09m_s100.A01 made 9,836 tasks and timed out where the hinted run
// proves it in about 300), and the canary still catches done records of
// unsearched tasks: they prove only the hint, one worse than what the
// coordinator holds.
func (e *epochRun) hint(round int) {
	if e.canary == nil || e.spec.weaken == nil {
		return
	}
	if r := e.spec.weaken(e.canary); r != nil && e.spec.verify(r) == nil {
		r.Worker, r.Round = "coordinator "+e.cfg.Name, round
		if err := e.publish(kindBest, *r); err != nil {
			e.lg.Printf("job %s: publishing the starting incumbent: %v", e.job, err)
		}
	}
}

// bestKnown is the best size this coordinator knows: the ledger's, or
// its own canary's.
func (e *epochRun) bestKnown() int {
	b := e.l.size
	if e.canary != nil && e.spec.better(e.canary.Size, b) {
		b = e.canary.Size
	}
	return b
}

// admit takes a record that passed every check.
func (e *epochRun) admit(r *Record) {
	if r.Kind == kindDone && e.quarantined[r.Signer] != "" {
		return
	}
	e.history = append(e.history, r)
	e.l.take(r)
	if r.Kind == kindDone && e.aud != nil && r.Round == e.l.round {
		e.lastDone = append(e.lastDone, r)
		if len(e.lastDone) > auditLast {
			e.lastDone = e.lastDone[1:]
		}
		if e.aud.sample() {
			e.aud.ask(r, e.bestKnown(), false)
		}
	}
}

// result is the job's answer as the ledger stands.
func (e *epochRun) result() Result {
	l, spec := e.l, e.spec
	r := Result{Job: e.job, Epoch: e.epoch, Size: l.size, Mapping: l.mapping, Cover: l.cover, Found: l.has && spec.minimize, Proven: l.proven(), Tasks: l.finished,
		Roots: len(l.roots), Nodes: l.nodes, Resumed: e.resumed, Elapsed: time.Since(e.start), Workers: e.alive.count()}
	if e.aud != nil {
		r.Audited = e.aud.done
	}
	for _, n := range e.quarantined {
		r.Quarantined = append(r.Quarantined, n)
	}
	slices.Sort(r.Quarantined)
	if cn := e.canary; cn != nil && (!l.has && spec.minimize || spec.better(cn.Size, l.size)) {
		// Never report less than what this coordinator holds itself.
		r.Size, r.Mapping, r.Cover, r.Found, r.Proven = cn.Size, cn.Mapping, cn.Cover, cn.Found, false
	}
	return r
}

// startReader reads the job's records from the start into msgs (and its
// failure into readErr) until rctx ends.
func (e *epochRun) startReader() error {
	rctx := e.rctx
	cons, err := e.conn.JS.OrderedConsumer(rctx, ResultStream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{resultPrefix + e.job + ".>"}})
	if err != nil {
		return fmt.Errorf("cluster: reading the results of job %s: %w", e.job, err)
	}
	it, err := cons.Messages()
	if err != nil {
		return fmt.Errorf("cluster: reading the results of job %s: %w", e.job, err)
	}
	go func() {
		defer it.Stop()
		stop := context.AfterFunc(rctx, it.Stop)
		defer stop()
		for {
			m, err := it.Next()
			if err != nil {
				e.readErr <- err
				return
			}
			select {
			case e.msgs <- m:
			case <-rctx.Done():
				return
			}
		}
	}()
	return nil
}

// republishOpen publishes again the open tasks that which picks and
// whose paths are known (roots, and children of done records that list
// their paths), with message ids tagged so the queue takes them.
func (e *epochRun) republishOpen(which func(string) bool, tag string) int {
	l := e.l
	n := 0
	for id := range l.expected {
		p, ok := l.paths[id]
		if l.done[id] != nil || !ok || !which(id) {
			continue
		}
		t := Task{Protocol: protocol, Problem: e.spec.problem, Job: e.job, Epoch: e.epoch, Round: l.round, ID: id, Instance: e.spec.hash,
			Path: p, Bound: l.bound[id], Budget: e.cfg.Budget}
		if len(l.roots) > 0 {
			t.Options = l.roots[0].Options
		}
		b, err := json.Marshal(&t)
		if err != nil {
			continue
		}
		if _, err := e.conn.JS.Publish(e.ctx, taskSubject(e.job), b, jetstream.WithMsgID(id+"."+tag)); err == nil {
			n++
		}
	}
	return n
}

// quarantine drops a worker's done records after a failed audit: the
// ledger is rebuilt without them and the tasks they claimed are published
// again.
func (e *epochRun) quarantine(r *Record, why string) {
	e.quarantined[r.Signer] = r.Worker
	e.aud.fails++
	e.lg.Printf("job %s: worker %s (key %.12s…) failed the audit of task %s: %s; quarantined: its records no longer count in this job and its tasks are searched again",
		e.job, r.Worker, r.Signer, r.Task, why)
	nl := newLedger(e.spec.minimize)
	if e.spec.start != nil {
		nl.offer(e.spec.start)
	}
	claimed := map[string]bool{}
	for _, h := range e.history {
		if h.Kind == kindDone && e.quarantined[h.Signer] != "" {
			claimed[h.Task] = true
			continue
		}
		nl.take(h)
	}
	*e.l = *nl
	e.lastDone, e.finalAsked = nil, false
	n := e.republishOpen(func(id string) bool { return claimed[id] && !e.requeued[id] }, "q")
	for id := range claimed {
		e.requeued[id] = true
	}
	e.lg.Printf("job %s: %d tasks it reported done published again; %d of %d tasks now done", e.job, n, e.l.finished, len(e.l.expected))
}

// watchdog republishes the open tasks when the shared queue has stood
// idle for stallAfter (see idleSince).
func (e *epochRun) watchdog() {
	l := e.l
	if !l.plan || l.proven() || time.Since(e.lastCheck) < time.Second || !e.connected.Load() {
		return
	}
	e.lastCheck = time.Now()
	ci, err := e.workCons.Info(e.ctx)
	if err != nil {
		return
	}
	if ci.NumPending > 0 || ci.NumAckPending > 0 || ci.NumWaiting == 0 {
		e.idleSince = time.Time{} // busy, or no worker is asking for tasks
		return
	}
	if e.idleSince.IsZero() {
		e.idleSince = time.Now()
	}
	if time.Since(e.idleSince) < stallAfter {
		return
	}
	e.idleSince = time.Time{}
	e.republished++
	n := e.republishOpen(func(id string) bool { return true }, fmt.Sprintf("w%d", e.republished))
	if n > 0 || e.republished == 1 {
		e.lg.Printf("job %s: %d of %d tasks open but nothing queued or running for %v: published its %d open tasks again", e.job,
			len(l.expected)-l.finished, len(l.expected), stallAfter, n)
	}
}

// progress reports to cfg.Progress, at most every 100 ms unless forced
// (the queue's counts at most every second).
func (e *epochRun) progress(force bool) {
	if e.cfg.Progress == nil || !force && time.Since(e.lastProgress) < 100*time.Millisecond {
		return
	}
	e.lastProgress = time.Now()
	if time.Since(e.lastQueue) >= time.Second && e.connected.Load() {
		e.lastQueue = time.Now()
		if ci, err := e.workCons.Info(e.ctx); err == nil {
			e.queued, e.running = int(ci.NumPending), ci.NumAckPending
		}
	}
	r := e.result()
	l := e.l
	e.cfg.Progress(Progress{Job: e.job, Epoch: e.epoch, Size: r.Size, Bound: l.jobBound(), Tasks: len(l.expected), Done: l.finished,
		Queued: e.queued, Running: e.running, Workers: e.alive.count(), Records: e.records, Nodes: l.nodes, Resumed: e.resumed,
		Elapsed: time.Since(e.start), Connected: e.connected.Load()})
}

// renew writes the job's progress and lease, and checks the job is still
// this epoch's.
func (e *epochRun) renew() error {
	ctx, job, epoch := e.ctx, e.job, e.epoch
	cur, err := e.store.get(ctx, job)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		if e.connected.Load() && notFound(err) {
			return fmt.Errorf("cluster: job %s (epoch %s) %w: its records are gone (did the server lose its store?)", job, epoch, errVanished)
		}
		e.renewBack.fail(ctx, err)
		return nil
	}
	switch {
	case cur == nil:
		return fmt.Errorf("cluster: job %s (epoch %s) %w: its record is gone (did the server lose its store?)", job, epoch, errVanished)
	case cur.Epoch != epoch:
		return fmt.Errorf("cluster: job %s %w: epoch %s replaced epoch %s", job, errVanished, cur.Epoch, epoch)
	case cur.State == StateCancelled:
		return fmt.Errorf("cluster: job %s was cancelled", job)
	case cur.State == StatePurged:
		return fmt.Errorf("cluster: job %s was purged while it ran", job)
	}
	r := e.result()
	l := e.l
	upd := *cur
	upd.Renewed, upd.Coordinator, upd.State = time.Now(), e.cfg.Name, StateRunning
	upd.Size, upd.Bound, upd.Tasks, upd.Done, upd.Nodes = r.Size, l.jobBound(), len(l.expected), l.finished, l.nodes
	if err := e.store.create(ctx, &upd, cur.Rev); err != nil {
		e.renewBack.fail(ctx, err) // another coordinator of the job renewed it: next time
		return nil
	}
	e.renewBack.ok()
	e.info = &upd
	return nil
}

// handBack republishes the tasks of this job held by workers that went
// silent: a worker killed mid-task need not wait for the consumer's ack
// wait.
func (e *epochRun) handBack() {
	cfg, job := e.cfg, e.job
	for _, h := range e.alive.silent(cfg.AckWait, cfg.TaskDeadline, job, time.Unix(0, e.back.Load())) {
		if e.handedBack[h.Seq] && !h.overdue {
			continue
		}
		e.handedBack[h.Seq] = true
		m, err := e.tasks.GetMsg(e.ctx, h.Seq)
		if err != nil {
			continue // acked meanwhile: done, or handed back already
		}
		t, err := decodeTask(m.Data)
		if err != nil || t.Job != job || t.Epoch != e.epoch || e.l.done[t.ID] != nil {
			continue
		}
		if _, err := e.conn.JS.Publish(e.ctx, taskSubject(job), m.Data, jetstream.WithMsgID(fmt.Sprintf("%s.h%d", t.ID, h.Seq))); err != nil {
			e.lg.Printf("job %s: handing back task %s: %v", job, t.ID, err)
			continue
		}
		why := fmt.Sprintf("unheard for %v", cfg.AckWait)
		switch {
		case h.restarted:
			why = "restarted under its name"
		case h.overdue:
			why = fmt.Sprintf("held it past its deadline (%v)", cfg.TaskDeadline)
		}
		e.lg.Printf("job %s: worker %s %s: handed its task %s to the others", job, strings.TrimSuffix(h.worker, "/"), why, t.ID)
	}
}

// stopped lets go of the job when its context ends: a fresh job is
// cancelled and purged, any other marked stopped for a rerun to resume.
func (e *epochRun) stopped(cause error) (Result, error) {
	e.cleaned = true
	res := e.result()
	cctx, cancel := context.WithTimeout(context.WithoutCancel(e.ctx), 5*time.Second)
	defer cancel()
	job, l := e.job, e.l
	if e.cfg.Fresh {
		// Nobody can resume a fresh job: its queued tasks would only
		// delay later jobs.
		_ = e.conn.endJob(cctx, e.store, e.info, e.key, Record{Cancelled: true})
		if err := e.conn.purgeJob(cctx, e.store, e.info); err != nil {
			e.lg.Printf("%v", err)
		} else {
			e.lg.Printf("job %s stopped: cancelled and purged (a --fresh job cannot be resumed)", job)
		}
	} else {
		// Let go of the job: its tasks wait, unsearched, for a rerun
		// (workers skip them at once), and it expires after its lease.
		if cur, err := e.store.get(cctx, job); err == nil && cur != nil && cur.Epoch == e.epoch && cur.State == StateRunning {
			upd := *cur
			upd.State, upd.Renewed = StateStopped, time.Now()
			if err := e.store.create(cctx, &upd, cur.Rev); err != nil {
				e.lg.Printf("job %s: marking it stopped: %v", job, err)
			}
			_ = e.conn.NC.Publish(stoppedSubject, []byte(job))
		}
		e.lg.Printf("job %s stopped with %d of %d tasks done: a rerun within %v resumes it; then it expires ('arbor jobs cancel %s' ends it now)",
			job, l.finished, len(l.expected), e.cfg.Lease, job)
	}
	return res, fmt.Errorf("cluster: job %s stopped with %d of %d tasks done: %w", job, l.finished, len(l.expected), cause)
}

// follow takes the job's records, audit verdicts and ticks until the job
// is proven (true) or the epoch ends otherwise (false, with its result).
func (e *epochRun) follow(ticks <-chan time.Time, audits <-chan auditVerdict) (Result, bool, error) {
	for {
		done, err := e.settled()
		if err != nil {
			return e.result(), false, err
		}
		if done {
			return Result{}, true, nil
		}
		select {
		case <-e.ctx.Done():
			res, err := e.stopped(e.ctx.Err())
			return res, false, err
		case err := <-e.readErr:
			if e.ctx.Err() != nil {
				continue
			}
			e.readBack.fail(e.ctx, err)
			if err := e.startReader(); err != nil {
				e.readBack.fail(e.ctx, err)
				e.readErr <- err
			}
		case <-ticks:
			if err := e.onTick(); err != nil {
				return e.result(), false, err
			}
		case v := <-audits:
			e.onAudit(v)
		case msg := <-e.msgs:
			if err := e.onRecord(msg); err != nil {
				return e.result(), false, err
			}
		}
	}
}

// settled says whether the job is done: proven, and (where records are
// audited) the proof's audits all answered. A proof worse than the
// canary rests on done records of tasks never searched: the job is
// planned again in a new round, at most maxRounds times.
func (e *epochRun) settled() (bool, error) {
	l, job := e.l, e.job
	if !l.proven() || l.round < e.awaitRound {
		return false, nil
	}
	if cn := e.canary; cn != nil && e.spec.better(cn.Size, l.size) {
		e.lg.Printf("job %s: contradiction: its done records prove %d, but this coordinator holds a verified solution of %d: "+
			"some task was reported done without its search (a misused worker token?)", job, l.size, cn.Size)
		if l.ended != nil {
			return false, fmt.Errorf("cluster: job %s %w (its records end it with a false proof)", job, errReplan)
		}
		if l.round+1 >= maxRounds {
			return false, fmt.Errorf("cluster: job %s: the done records contradicted the coordinator's own solution in %d rounds; answer unproven", job, maxRounds)
		}
		e.awaitRound = l.round + 1
		e.lg.Printf("job %s: searching it again (round %d)", job, e.awaitRound)
		if err := e.plan(e.awaitRound); err != nil {
			return false, err
		}
		e.hint(e.awaitRound)
		return false, nil
	}
	if e.aud == nil {
		return true, nil
	}
	if !e.finalAsked {
		// A proof's last tasks are always audited, and so is what
		// waited for the proof.
		e.finalAsked = true
		for _, r := range append(e.lastDone, e.deferred...) {
			if e.quarantined[r.Signer] == "" {
				e.aud.ask(r, e.bestKnown(), true)
			}
		}
		e.deferred = nil
	}
	return e.aud.n == 0, nil
}

// onTick does the chores: records whose keys were not registered are
// checked again, the lease renewed, silent workers' tasks handed back,
// the watchdog run and the progress shown.
func (e *epochRun) onTick() error {
	if len(e.waiting) > 0 && time.Since(e.lastWait) >= time.Second {
		e.lastWait = time.Now()
		w := e.waiting
		e.waiting = nil
		for _, r := range w {
			if err := e.sg.check(r); errors.Is(err, errUnregistered) {
				e.waiting = append(e.waiting, r)
			} else if err == nil {
				e.admit(r)
			}
		}
	}
	if time.Since(e.lastRenew) >= min(e.cfg.Lease/4, 2*time.Second) || !e.connected.Load() {
		if err := e.renew(); err != nil {
			return err
		}
		e.lastRenew = time.Now()
	}
	e.handBack()
	e.watchdog()
	e.progress(true)
	return nil
}

// onAudit takes an audit's verdict: a better solution it found counts, a
// failed audit quarantines the worker, one that can only be judged at the
// proof waits for it.
func (e *epochRun) onAudit(v auditVerdict) {
	e.aud.n--
	e.aud.done++
	if v.better != nil && e.spec.verify(v.better) == nil {
		b := *v.better
		b.Protocol, b.Kind, b.Job, b.Epoch, b.Round = protocol, kindBest, e.job, e.epoch, e.l.round
		e.history = append(e.history, &b)
		e.l.take(&b)
	}
	switch {
	case e.quarantined[v.rec.Signer] != "":
	case v.later:
		e.deferred = append(e.deferred, v.rec)
	case v.why != "":
		e.quarantine(v.rec, v.why)
	}
}

// onRecord takes a record read from the job's stream, once it passes
// checkRecord; an error ends the epoch.
func (e *epochRun) onRecord(msg jetstream.Msg) error {
	e.records++
	e.readBack.ok()
	r, skip, err := e.checkRecord(msg.Data())
	if skip {
		return nil
	}
	if errors.Is(err, errUnregistered) && len(e.waiting) < 1<<16 {
		if len(e.waiting) == 0 {
			e.lg.Printf("job %s: a %s record of worker %q: %v; it waits for the key (checked again every second)", e.job, r.Kind, r.Worker, err)
		}
		e.waiting = append(e.waiting, r)
		return nil
	}
	if err == nil && r.Kind == kindPlan {
		err = checkRoots(r.Roots, e.job, e.spec.hash, e.epoch, r.Round)
	}
	if err != nil {
		e.lg.Printf("ignored a message on %s: %v", msg.Subject(), err)
		return nil
	}
	if r.Kind == kindEnd && r.Cancelled {
		return fmt.Errorf("cluster: job %s was cancelled", e.job)
	}
	e.admit(r)
	if err := e.checkPublished(); err != nil {
		return err
	}
	e.progress(false)
	return nil
}

// checkRecord decodes a record and checks it is this job's, its
// certificate valid, its signature the job key's or a registered
// worker's, and a done record's evidence sound. skip: a record of another
// epoch, ignored without a word (but the first).
func (e *epochRun) checkRecord(data []byte) (r *Record, skip bool, err error) {
	job := e.job
	r, err = decodeRecord(data)
	if err == nil && r.Job != job {
		err = fmt.Errorf("record of job %s", r.Job)
	}
	if err == nil && r.certified() {
		if verr := e.spec.verify(r); verr != nil {
			err = fmt.Errorf("%s record with an invalid certificate: %w", r.Kind, verr)
		}
	}
	if err == nil && r.Epoch != e.epoch {
		e.leftovers++
		if e.leftovers == 1 {
			e.lg.Printf("job %s: ignoring records of epoch %q (not the live epoch %s)", job, r.Epoch, e.epoch)
		}
		return r, true, nil
	}
	if err == nil && signedKind(r.Kind) {
		if verr := verifyRecord(r, e.info.Key); verr != nil {
			err = fmt.Errorf("an unauthenticated %s record: %v", r.Kind, verr)
		}
	}
	if err == nil && r.Kind == kindDone && !isHex(r.Task, 24) {
		err = errors.New("done record without a valid task id")
	}
	if err == nil && r.Kind == kindDone {
		if err = e.sg.check(r); err != nil {
			err = fmt.Errorf("a done record of worker %q: %w", r.Worker, err)
		}
	}
	if err == nil && r.Kind == kindBest && !e.unsignedBest && (r.Signer == "" && verifyRecord(r, e.info.Key) != nil || r.Signer != "" && e.sg.check(r) != nil) {
		// A solution counts whoever found it: its certificate was
		// checked above. (The workers prune with every verified
		// solution they hear; ignoring one here would make their
		// bars look unfounded to the audits.)
		e.unsignedBest = true
		e.lg.Printf("job %s: a best record of worker %q not signed by its registered key; its solution is verified and counts", job, r.Worker)
	}
	if err == nil && r.Kind == kindDone {
		err = checkEvidence(r)
	}
	return r, false, err
}

// checkPublished: a coordinator stopped between plan and published may
// have left roots unpublished. A resumed one checks each round once and
// publishes them again (duplicates are dropped by id, or harmless).
func (e *epochRun) checkPublished() error {
	l := e.l
	if !e.resumed || !l.plan || e.publishedChecked[l.round] {
		return nil
	}
	e.publishedChecked[l.round] = true
	m, err := e.results.GetLastMsgForSubject(e.ctx, resultSubject(e.job, kindPublished))
	var pr *Record
	if err == nil {
		pr, _ = decodeRecord(m.Data)
	}
	if err != nil && !errors.Is(err, jetstream.ErrMsgNotFound) {
		return fmt.Errorf("cluster: reading the results of job %s: %w", e.job, err)
	}
	if pr == nil || pr.Epoch != e.epoch || pr.Round < l.round {
		e.lg.Printf("job %s: republishing its %d root tasks", e.job, len(l.roots))
		if err := e.publishTasks(l.roots, l.round); err != nil {
			return err
		}
	}
	return nil
}

// finish checks the proven answer, ends the job (unless its records end
// it already) and drops its leftover tasks.
func (e *epochRun) finish() (Result, error) {
	ctx, job, l := e.ctx, e.job, e.l
	res := e.result()
	e.progress(true)
	final := &Record{Size: res.Size, Mapping: res.Mapping, Cover: res.Cover, Found: res.Found, Nodes: res.Nodes, Proven: true}
	if err := e.spec.verify(final); err != nil {
		return res, fmt.Errorf("cluster: job %s: the final answer fails verification: %w", job, err)
	}
	if l.ended == nil {
		info := e.info
		info.Size, info.Bound, info.Tasks, info.Done, info.Nodes = res.Size, res.Size, len(l.expected), l.finished, l.nodes
		if err := e.conn.endJob(ctx, e.store, info, e.key, *final); err != nil {
			return res, err
		}
	}
	// Tasks left in the queue are duplicates of finished ones.
	if err := e.tasks.Purge(ctx, jetstream.WithPurgeSubject(taskSubject(job))); err != nil {
		e.lg.Printf("job %s: purging leftover tasks: %v", job, err)
	}
	return res, nil
}
