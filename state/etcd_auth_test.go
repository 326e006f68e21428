package state

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/state/etcdtest"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// An etcd with authentication enabled: the backend works with the right
// credentials and explains, naming the endpoint and the user and never
// the password, wrong ones, none, and a user without access to the
// prefix.
func TestEtcdAuthentication(t *testing.T) {
	ep := etcdtest.Start(t)
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{ep}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, step := range []func() error{
		func() error { _, err := c.UserAdd(ctx, "root", "root-pw-1"); return err },
		func() error { _, err := c.UserGrantRole(ctx, "root", "root"); return err },
		// A user allowed only keys under /elsewhere/.
		func() error { _, err := c.UserAdd(ctx, "narrow", "narrow-pw-1"); return err },
		func() error { _, err := c.RoleAdd(ctx, "elsewhere"); return err },
		func() error {
			_, err := c.RoleGrantPermission(ctx, "elsewhere", "/elsewhere/", clientv3.GetPrefixRangeEnd("/elsewhere/"), clientv3.PermissionType(clientv3.PermReadWrite))
			return err
		},
		func() error { _, err := c.UserGrantRole(ctx, "narrow", "elsewhere"); return err },
		func() error { _, err := c.AuthEnable(ctx); return err },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	c.Close()

	open := func(user, pw string) (*Etcd, error) {
		return NewEtcd(context.Background(), EtcdOptions{Endpoints: []string{ep}, Prefix: "/auth", Username: user, Password: pw, LockTTL: 2 * time.Second})
	}
	e, err := open("root", "root-pw-1")
	if err != nil {
		t.Fatal(err)
	}
	id, err := e.Lock(NewLockInfo("test"))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.RefreshState(); err != nil {
		t.Fatal(err)
	}
	e.WriteState(New())
	if err := e.PersistState(); err != nil {
		t.Fatal(err)
	}
	if err := e.Unlock(id); err != nil {
		t.Fatal(err)
	}
	e.Close()

	check := func(what string, err error, want error, says string) {
		t.Helper()
		var ae *AuthError
		if !errors.As(err, &ae) || !errors.Is(err, want) {
			t.Errorf("%s: %v (%T), want an AuthError for %v", what, err, err, want)
			return
		}
		msg := err.Error()
		if !strings.Contains(msg, "etcd at "+ep) || !strings.Contains(msg, says) || strings.Contains(msg, "pw-") || strings.Contains(msg, "rpc error") {
			t.Errorf("%s: %q does not name the endpoint and say %q, or shows a password or the gRPC status", what, msg, says)
		}
	}
	_, err = open("root", "wrong-pw-2")
	check("a wrong password", err, rpctypes.ErrAuthFailed, `refused the credentials of user "root"`)
	_, err = open("nobody", "root-pw-1")
	check("an unknown user", err, rpctypes.ErrAuthFailed, `refused the credentials of user "nobody"`)

	anon, err := open("", "")
	if err != nil {
		t.Fatal(err)
	}
	defer anon.Close()
	check("no credentials, reading", anon.RefreshState(), rpctypes.ErrUserEmpty, "has authentication enabled and no credentials were given")
	_, err = anon.Lock(NewLockInfo("test"))
	check("no credentials, locking", err, rpctypes.ErrUserEmpty, "has authentication enabled and no credentials were given")

	narrow, err := open("narrow", "narrow-pw-1")
	if err != nil {
		t.Fatal(err)
	}
	defer narrow.Close()
	check("a user without access to the prefix", narrow.RefreshState(), rpctypes.ErrPermissionDenied, `denied user "narrow" access to the keys under "/auth/"`)

	// A lock held, read by those who may not: not "is not locked".
	holder, err := open("root", "root-pw-1")
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	held, err := holder.Lock(NewLockInfo("test"))
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Unlock(held)
	_, err = narrow.ForceUnlockable(held)
	check("a user without access to the prefix, force-unlocking", err, rpctypes.ErrPermissionDenied, `denied user "narrow"`)
	_, err = anon.ForceUnlockable(held)
	check("no credentials, force-unlocking", err, rpctypes.ErrUserEmpty, "no credentials were given")
	_, err = anon.LockHolder()
	check("no credentials, reading the lock", err, rpctypes.ErrUserEmpty, "no credentials were given")
}
