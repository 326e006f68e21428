package client_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/apply/agent/client"
)

// Agents dialled through one RemoteFiles share one reading of the files
// they name: the second agent is reached with files gone from the disk
// since the first was dialled. A failure to read them is each agent's
// error, naming its address.
func TestRemoteFilesReadOnce(t *testing.T) {
	p := newTestPKI(t)
	a, b := runTLSAgent(t, p.server, p.ca), runTLSAgent(t, p.server, p.ca)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	files := &client.RemoteFiles{}
	for i, ag := range []*tlsAgent{a, b} {
		c, err := files.Dial(ctx, remote(ag, p.ca, p.client))
		if err != nil {
			t.Fatalf("Dial %s: %v", ag.info.Listen, err)
		}
		c.Close()
		if i == 0 {
			for _, f := range []string{p.ca.CertFile, p.client.CertFile, p.client.KeyFile} {
				if err := os.Remove(f); err != nil {
					t.Fatal(err)
				}
			}
		}
	}

	files = &client.RemoteFiles{}
	for _, ag := range []*tlsAgent{a, b} {
		_, err := files.Dial(ctx, remote(ag, p.ca, p.client))
		var re *client.RemoteError
		if !errors.As(err, &re) || re.Problem != client.LocalFiles || !strings.Contains(err.Error(), ag.info.Listen) || !strings.Contains(err.Error(), "reading the CA file") {
			t.Errorf("Dial %s with the files gone: %v", ag.info.Listen, err)
		}
	}
}
