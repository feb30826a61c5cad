// Command verify_webhook receives Formwell webhooks and checks their Standard Webhooks
// signature. Go's standard library only. Run: WEBHOOK_SECRET=whsec_... PORT=3000 go run verify_webhook.go
package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

const tolerance = 5 * time.Minute

// verifyWebhook reports whether one v1 signature of webhook-signature signs this id,
// timestamp and raw body.
func verifyWebhook(secret string, h http.Header, rawBody []byte, now time.Time) bool {
	id, timestamp, signatures := h.Get("webhook-id"), h.Get("webhook-timestamp"), h.Get("webhook-signature")
	if id == "" || timestamp == "" || signatures == "" {
		return false
	}
	seconds, err := strconv.ParseUint(timestamp, 10, 63)
	if err != nil {
		return false
	}
	if age := now.Sub(time.Unix(int64(seconds), 0)); age > tolerance || age < -tolerance {
		return false
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + timestamp + "."))
	mac.Write(rawBody)
	expected := mac.Sum(nil)
	for _, entry := range strings.Split(signatures, " ") {
		version, signature, found := strings.Cut(entry, ",")
		if !found || version != "v1" {
			continue
		}
		given, err := base64.StdEncoding.DecodeString(signature)
		if err == nil && hmac.Equal(given, expected) {
			return true
		}
	}
	return false
}

func main() {
	secret := os.Getenv("WEBHOOK_SECRET")
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		rawBody, err := io.ReadAll(r.Body)
		if err != nil || !verifyWebhook(secret, r.Header, rawBody, time.Now()) {
			http.Error(w, "invalid signature", http.StatusBadRequest)
			return
		}
		var event struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(rawBody, &event); err != nil {
			http.Error(w, "invalid JSON", http.StatusBadRequest)
			return
		}
		// Deliveries are at least once: skip a webhook-id you have already handled.
		fmt.Printf("received %s %s\n", event.Type, r.Header.Get("webhook-id"))
		w.WriteHeader(http.StatusNoContent)
	})
	port := os.Getenv("PORT")
	if port == "" {
		port = "3000"
	}
	listener, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("listening on %d\n", listener.Addr().(*net.TCPAddr).Port)
	log.Fatal(http.Serve(listener, nil))
}
