package state

import (
	"errors"
	"fmt"
	"strings"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
)

// AuthError is etcd refusing the backend's credentials, or asking for
// credentials it was not given. It names the cluster and the user, never
// the password, and says what to do rather than show the gRPC status.
type AuthError struct {
	Endpoints []string
	Username  string
	Prefix    string
	Err       error // etcd's own error, such as rpctypes.ErrAuthFailed
}

func (e *AuthError) Error() string {
	at := strings.Join(e.Endpoints, ",")
	switch {
	case errors.Is(e.Err, rpctypes.ErrAuthFailed):
		return fmt.Sprintf("etcd at %s refused the credentials of user %q: authentication failed, the user name or the password is wrong (%v)", at, e.Username, e.Err)
	case errors.Is(e.Err, rpctypes.ErrUserEmpty):
		return fmt.Sprintf("etcd at %s has authentication enabled and no credentials were given: set the etcd backend's username and password (%v)", at, e.Err)
	case errors.Is(e.Err, rpctypes.ErrPermissionDenied):
		return fmt.Sprintf("etcd at %s denied user %q access to the keys under %q: grant the user's role readwrite on that prefix (%v)", at, e.Username, e.Prefix, e.Err)
	}
	return fmt.Sprintf("etcd at %s: authentication failed for user %q (%v)", at, e.Username, e.Err)
}

func (e *AuthError) Unwrap() error { return e.Err }

// WrongCredentials reports whether etcd refused the user name or the
// password (not a missing credential or a missing permission).
func (e *AuthError) WrongCredentials() bool { return errors.Is(e.Err, rpctypes.ErrAuthFailed) }

// authErrors are the etcd errors AuthError explains.
var authErrors = []error{rpctypes.ErrAuthFailed, rpctypes.ErrUserEmpty, rpctypes.ErrPermissionDenied}

// explainAuth returns err as an *AuthError when etcd refused to
// authenticate or authorise, else err unchanged.
func explainAuth(err error, opts EtcdOptions) error {
	for _, ae := range authErrors {
		if errors.Is(err, ae) {
			return &AuthError{Endpoints: opts.Endpoints, Username: opts.Username, Prefix: normalPrefix(opts.Prefix), Err: ae}
		}
	}
	return err
}
