//go:build unix

package mcpproxy

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts the server in a process group of its own, so that
// terminating it reaches the processes it started (npx starts node).
func setProcessGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

func terminate(cmd *exec.Cmd) { signalGroup(cmd, syscall.SIGTERM) }

func kill(cmd *exec.Cmd) { signalGroup(cmd, syscall.SIGKILL) }

func signalGroup(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.Process == nil {
		return
	}
	if err := syscall.Kill(-cmd.Process.Pid, sig); err != nil {
		cmd.Process.Signal(sig)
	}
}
