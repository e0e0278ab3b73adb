ALTER TABLE `games` ADD `recorded_verdict` text;--> statement-breakpoint
UPDATE `games` SET `recorded_verdict` = `verdict` WHERE `source` LIKE 'fastchat:%' AND `parser` IN ('recorded', 'fastchat@1');
