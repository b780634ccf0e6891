package cluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/arbor-gpu/arbor/algorithms/mcs"
)

// protocol is the version of the task and record formats; a message of
// another version is rejected, not guessed at. 2: mcs tasks name their
// search tree (MCSOptions.Prune), which version 1 did not (its tasks were
// of the original tree).
const protocol = 2

// Task is one subtree to search: self-contained, it names the instance by
// hash and carries the options, so any worker can take it.
type Task struct {
	Protocol int    `json:"protocol"`
	Problem  string `json:"problem"` // its codec's name: "mcs", "vc"
	Job      string `json:"job"`
	// Epoch is the job's incarnation on the server (JobInfo.Epoch): a task
	// of another epoch is a leftover and is dropped. Round counts the
	// re-searches of the epoch after a contradiction; ids include both.
	Epoch    string     `json:"epoch"`
	Round    int        `json:"round,omitempty"`
	ID       string     `json:"id"`
	Instance string     `json:"instance"` // sha256 of the canonical instance bytes
	Options  MCSOptions `json:"options"`
	// Path: the decisions from the root. mcs: (v, w) match v to w in the
	// search's numbering, w = −1 leaves v unmatched; vc: (v, 1) puts input
	// vertex v in the cover, (v, 0) its live neighbours instead.
	Path      [][2]int32 `json:"path"`
	Bound     int        `json:"bound"`
	Incumbent int        `json:"incumbent"` // best size known when published: a hint, never used to prune
	Budget    int64      `json:"budget"`    // nodes before splitting (0: none)
}

func (t *Task) steps() []mcs.Step {
	s := make([]mcs.Step, len(t.Path))
	for i, p := range t.Path {
		s[i] = mcs.Step{V: p[0], W: p[1]}
	}
	return s
}

func fromSteps(s []mcs.Step) [][2]int32 {
	p := make([][2]int32, len(s))
	for i, x := range s {
		p[i] = [2]int32{x.V, x.W}
	}
	return p
}

// decodeTask reads and checks a task message.
func decodeTask(data []byte) (*Task, error) {
	var t Task
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("not a task: %w", err)
	}
	switch {
	case t.Protocol != protocol:
		return nil, fmt.Errorf("task protocol %d, this worker speaks %d", t.Protocol, protocol)
	case !known(t.Problem):
		return nil, fmt.Errorf("task for problem %q, want one of %s", t.Problem, strings.Join(Problems(), ", "))
	case !validJob(t.Job) || !isHex(t.ID, 24) || !isHex(t.Instance, 64) || !isHex(t.Epoch, 16) || t.Round < 0:
		return nil, errors.New("task without a valid job, epoch, id or instance hash")
	case t.Job != JobID(t.Problem, t.Instance, t.Options):
		return nil, fmt.Errorf("task %s: job %s is not that of its problem, instance and options", t.ID, t.Job)
	case t.ID != taskID(t.scope(), t.steps()):
		return nil, fmt.Errorf("task %s: the id does not match its path", t.ID)
	case t.Budget < 0 || t.Incumbent < 0:
		return nil, fmt.Errorf("task %s: negative budget or incumbent", t.ID)
	}
	return &t, nil
}

// scope is what a task id is unique within: the job, its epoch and round.
func (t *Task) scope() string { return scopeOf(t.Job, t.Epoch, t.Round) }

func scopeOf(job, epoch string, round int) string {
	return fmt.Sprintf("%s.%s.%d", job, epoch, round)
}

// validJob checks a job id: its problem (a registered codec), a dash and
// 24 hex digits ("mcs-…", "vc-…"), so that a task or a listing names its
// problem.
func validJob(job string) bool {
	p, h, ok := strings.Cut(job, "-")
	return ok && known(p) && isHex(h, 24)
}

// known says whether a problem has a registered codec.
func known(problem string) bool {
	_, ok := codecOf(problem)
	return ok
}

func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// Record kinds on the results stream.
const (
	kindPlan      = "plan"
	kindPublished = "published"
	kindDone      = "done"
	kindBest      = "best"
	kindEnd       = "end"
)

// signedKinds are the records only a job's coordinator may write: they
// carry its job key's signature, checked by workers and coordinators.
func signedKind(kind string) bool {
	return kind == kindPlan || kind == kindPublished || kind == kindEnd
}

// Record is a message on the results stream.
type Record struct {
	Protocol int    `json:"protocol"`
	Kind     string `json:"kind"`
	Job      string `json:"job"`
	Epoch    string `json:"epoch,omitempty"`
	Round    int    `json:"round,omitempty"`
	// done: the task finished; Children are the tasks it split off (all
	// published before this record).
	Task     string   `json:"task,omitempty"`
	Children []string `json:"children,omitempty"`
	// Bounds are the children's bounds, in order (for the job's bound in
	// the coordinator's progress; older workers leave them out).
	Bounds []int  `json:"bounds,omitempty"`
	Nodes  int64  `json:"nodes,omitempty"`
	Worker string `json:"worker,omitempty"`
	// done, best, end: the best solution found (a certificate: mapping of
	// input vertex ids).
	Size    int      `json:"size,omitempty"`
	Mapping [][2]int `json:"mapping,omitempty"` // common subgraph
	// vertex cover: Found says Cover (possibly empty) is a cover.
	Cover []int `json:"cover,omitempty"`
	Found bool  `json:"found,omitempty"`
	// plan: the root tasks, so a restarted coordinator can publish them again.
	Roots []Task `json:"roots,omitempty"`
	// end: Cancelled says the job was cancelled, not solved (Proven false).
	Cancelled bool `json:"cancelled,omitempty"`
	Proven    bool `json:"proven,omitempty"`
	// done: the evidence an audit replays (evidence.go). Path is the
	// task's own path (checked against its id), Paths the children's, in
	// order; Bar the incumbent the search started with, Pruned the one
	// the children were pruned with at its end, Budget its node budget;
	// Replay says the search was one CPU thread with the bar frozen, so
	// the same search gives the same nodes and children.
	Path   [][2]int32   `json:"path,omitempty"`
	Paths  [][][2]int32 `json:"paths,omitempty"`
	Bar    int          `json:"bar,omitempty"`
	Pruned int          `json:"pruned,omitempty"`
	Budget int64        `json:"budget,omitempty"`
	Replay bool         `json:"replay,omitempty"`
	// Signer is the worker's public key (hex) for done and best records,
	// registered under Worker (WorkerBucket).
	Signer string `json:"signer,omitempty"`
	// Sig is the ed25519 signature (base64) of the record without it: the
	// job key's on plan, published and end records (signedKind), the
	// worker's on done and best records.
	Sig string `json:"sig,omitempty"`
}

func decodeRecord(data []byte) (*Record, error) {
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("not a record: %w", err)
	}
	if r.Protocol != protocol {
		return nil, fmt.Errorf("record protocol %d, want %d", r.Protocol, protocol)
	}
	cert := len(r.Mapping)
	if r.Found || len(r.Cover) > 0 {
		if len(r.Mapping) > 0 || !r.Found {
			return nil, fmt.Errorf("%s record: a cover and a mapping, or a cover not marked found", r.Kind)
		}
		cert = len(r.Cover)
	}
	if r.Size < 0 || r.Size != cert && r.Kind != kindPlan && r.Kind != kindPublished {
		return nil, fmt.Errorf("%s record: size %d with a certificate of %d", r.Kind, r.Size, cert)
	}
	return &r, nil
}

// certified reports whether r carries a solution: a non-empty mapping, or
// a cover.
func (r *Record) certified() bool { return r.Found || len(r.Mapping) > 0 }
