package cluster

import (
	"crypto/subtle"

	"github.com/nats-io/nats-server/v2/server"
)

// Roles. A server with a worker token (ServerConfig.WorkerToken, 'arbor
// server --worker-token') lets two kinds of client in:
//
//   - coordinators (the coordinator token, also --cluster-token): every
//     right. They create jobs, plan them, end them, cancel and purge them;
//   - workers: take tasks, publish subtasks, done and best records,
//     announce themselves, read instances, job records and the registry
//     of worker keys. They may not write plan, published or end records,
//     job records, keys or the registry, read job keys, create, change,
//     purge or delete streams, create consumers (instances are read by
//     message gets), nor listen to the JetStream API or coordinators'
//     replies (which could carry job keys).
//
// A worker token that leaks thus cannot stop, plan or delete a job, and
// without a registered worker key (evidence.go) none of its records
// count. What it can read: every job's instance, records (solutions
// included) and job record, and the announcements. A worker with a key
// can still report a task done that it never searched: the coordinator
// audits done records and quarantines such a worker (evidence.go).
// With one token only (no worker token) every client has every right, as
// before; plan and end records are still signed with the job's key, so a
// stray or forged end is refused by the workers.
type roles struct {
	coordinator []string
	worker      string
}

// workerPermissions are the worker role's rights: everything but what the
// deny lists name.
var workerPermissions = &server.Permissions{
	Publish: &server.SubjectPermission{
		Allow: []string{">"},
		Deny: []string{
			resultPrefix + "*." + kindPlan, resultPrefix + "*." + kindPublished, resultPrefix + "*." + kindEnd,
			"$JS.API.STREAM.CREATE.>", "$JS.API.STREAM.UPDATE.>", "$JS.API.STREAM.DELETE.>", "$JS.API.STREAM.PURGE.>",
			"$JS.API.STREAM.MSG.DELETE.>", "$JS.API.STREAM.RESTORE.>", "$JS.API.STREAM.SNAPSHOT.>",
			// (a worker deletes the consumers it reads instances through)
			"$JS.API.CONSUMER.DELETE." + TaskStream + ".>", "$JS.API.CONSUMER.DELETE." + ResultStream + ".>",
			"$JS.API.CONSUMER.DELETE.KV_" + JobBucket + ".>", "$JS.API.CONSUMER.DELETE.KV_" + KeyBucket + ".>", "$JS.API.CONSUMER.PAUSE.>",
			// no consumers at all (instances are read by message gets):
			// a worker token cannot fill the server with them
			"$JS.API.CONSUMER.CREATE.>", "$JS.API.CONSUMER.DURABLE.CREATE.>", "$JS.API.ACCOUNT.>", "$JS.API.SERVER.>", "$JS.API.META.>",
			"$KV.>", "$O.>",
			// the job keys, by any route
			"$JS.API.DIRECT.GET.KV_" + KeyBucket, "$JS.API.DIRECT.GET.KV_" + KeyBucket + ".>",
			"$JS.API.STREAM.MSG.GET.KV_" + KeyBucket, "$JS.API.CONSUMER.CREATE.KV_" + KeyBucket,
			"$JS.API.CONSUMER.CREATE.KV_" + KeyBucket + ".>",
			"$SYS.>",
		},
	},
	Subscribe: &server.SubjectPermission{
		Allow: []string{">"},
		Deny:  []string{"$JS.>", "$KV.>", "$O.>", "$SYS.>", coordInbox + ".>"},
	},
}

// Check lets a client in by its token, with its role's rights.
func (r roles) Check(c server.ClientAuthentication) bool {
	o := c.GetOpts()
	tok := o.Token
	if tok == "" && o.Password == "" {
		tok = o.Username // nats://TOKEN@host sends the token as a user
	}
	for _, t := range r.coordinator {
		if t != "" && subtle.ConstantTimeCompare([]byte(tok), []byte(t)) == 1 {
			c.RegisterUser(&server.User{Username: "coordinator"})
			return true
		}
	}
	if r.worker != "" && subtle.ConstantTimeCompare([]byte(tok), []byte(r.worker)) == 1 {
		c.RegisterUser(&server.User{Username: "worker", Permissions: workerPermissions})
		return true
	}
	return false
}
