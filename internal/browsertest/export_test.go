package browsertest

import "github.com/chromedp/chromedp"

// BrowserPID returns the process id of the Chromium the tests share,
// starting it if none runs, for the tests of package browsertest_test.
func BrowserPID() (int, error) {
	ctx, err := browser()
	if err != nil {
		return 0, err
	}
	return chromedp.FromContext(ctx).Browser.Process().Pid, nil
}
