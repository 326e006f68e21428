package state

import (
	"sort"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// In etcd, the default workspace's keys are the prefix's own; workspace
// NAME's are under PREFIX + "env:/NAME/" (the layout of Terraform's S3
// backend), where the key "workspace" marks that it was made.
const (
	etcdWorkspaces      = "env:/"
	etcdWorkspaceMarker = "workspace"
)

func normalPrefix(p string) string {
	if p == "" {
		p = "rdmaform/"
	}
	if !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return p
}

// ForWorkspace is opts for workspace name's state ("default" is opts').
func (o EtcdOptions) ForWorkspace(name string) EtcdOptions {
	if name != "default" {
		o.Prefix = normalPrefix(o.Prefix) + etcdWorkspaces + name + "/"
	}
	return o
}

// Workspaces lists the workspaces made under e's prefix, sorted, the
// default (which always exists) left out.
func (e *Etcd) Workspaces() ([]string, error) {
	ctx, cancel := e.ctx()
	defer cancel()
	dir := e.key(etcdWorkspaces)
	r, err := e.client.Get(ctx, dir, clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		return nil, explainAuth(e.notAnswering(err), e.opts)
	}
	seen := map[string]bool{}
	var names []string
	for _, kv := range r.Kvs {
		name, _, _ := strings.Cut(strings.TrimPrefix(string(kv.Key), dir), "/")
		if name != "" && !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names, nil
}

// CreateWorkspace marks workspace name as made, so that Workspaces lists
// it before it has a state.
func (e *Etcd) CreateWorkspace(name string) error {
	ctx, cancel := e.ctx()
	defer cancel()
	_, err := e.client.Put(ctx, e.key(etcdWorkspaces+name+"/"+etcdWorkspaceMarker), "")
	return e.notAnswering(err)
}

// DeleteWorkspace removes every key of workspace name: its state, backup,
// journal and lock.
func (e *Etcd) DeleteWorkspace(name string) error {
	ctx, cancel := e.ctx()
	defer cancel()
	_, err := e.client.Delete(ctx, e.key(etcdWorkspaces+name+"/"), clientv3.WithPrefix())
	return e.notAnswering(err)
}
