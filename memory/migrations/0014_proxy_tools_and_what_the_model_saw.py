"""The model proxy's evidence loop and what the model saw (docs/PROXY.md): the installation
setting `proxy_tools` (off | memory); per proxied exchange, the blocks sent in place of earlier
turns with the history's tokens as sent and as native, and the memory rounds the proxy ran."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0013_proxy_layered_history"),
    ]

    operations = [
        migrations.AddField(
            model_name="memorysettings",
            name="proxy_tools",
            field=models.CharField(default="off", max_length=16),
        ),
        migrations.AddField(
            model_name="proxyexchange",
            name="history_blocks",
            field=models.JSONField(blank=True, default=list),
        ),
        migrations.AddField(
            model_name="proxyexchange",
            name="history_native_tokens",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="proxyexchange",
            name="history_sent_tokens",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="proxyexchange",
            name="memory_rounds",
            field=models.JSONField(blank=True, default=list),
        ),
    ]
